/* Placeholder: implemented by issue 15. */
#include "lib/launch/notify-fs.h"
