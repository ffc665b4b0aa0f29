/* A static program that runs the loop of exactly 2N instructions (N its argument): what the
 * emulated CPU's counts are checked on. Static, so that little runs before main (no dynamic
 * loader), which is where an emulator and valgrind differ (they pick other CPU-specific routines). */
#include <stdlib.h>

#include "../helpers/exact_loop.h"

int main(int argc, char** argv) {
  exact_loop(argc > 1 ? strtoul(argv[1], NULL, 10) : 1);
  return 0;
}
