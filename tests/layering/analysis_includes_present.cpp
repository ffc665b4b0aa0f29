// Deliberately wrong-way: the profile wing is below the shapes that present it.
#include "perfmon/report_output.hpp"
