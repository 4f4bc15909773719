/* Network and UTS namespaces. */
#pragma once

/* Child side: brings the loopback interface of the current network namespace up. */
int cordon_ns_net_loopback_up(void);
/* Child side: sets the hostname of the current UTS namespace. */
int cordon_ns_uts_set_hostname(const char *name);
