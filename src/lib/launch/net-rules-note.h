/* The one line a launch says about the caller's network rules that its mode cannot apply in
 * full: in filtered mode the host-name entries (the firewall sees addresses, the resolver
 * names), in proxied mode the entries with a URL path (seen in plain HTTP requests only). */
#pragma once

struct cordon_launch;

/* Says it through @l->warn, once per launch, when the delivered mode (@l->net_mode) leaves
 * something of the policy's NETWORK_BLOCKLIST / NETWORK_BLOCKLIST_EXCEPT entries unapplied;
 * nothing in a dry run, or for the floor's and the defaults' rules (the manual says what they
 * cover). The line names the variables and how many entries, never each entry: "the
 * explanation of NETWORK_BLOCKLIST" lists them (a front end says how to ask for it). */
void cordon_net_rules_note(struct cordon_launch *l);
