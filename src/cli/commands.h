/* Subcommands of the cordon program. Each returns the process exit status. */
#pragma once

#define EXIT_USAGE 2
#define EXIT_SETUP 125

int cmd_run(int argc, char **argv);
int cmd_doctor(int argc, char **argv);
int cmd_policy(int argc, char **argv);
