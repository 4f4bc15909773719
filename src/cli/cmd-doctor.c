/* `cordon doctor`: placeholder until the doctor lands. */
#include <stdio.h>

#include "cli/commands.h"

int cmd_doctor(int argc, char **argv)
{
        fprintf(stderr, "cordon: doctor is not implemented yet\n");
        return 1;
}
