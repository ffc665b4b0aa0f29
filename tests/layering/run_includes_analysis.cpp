// Deliberately wrong-way: a run gives Readings and files; their analysis is a wing of its own.
#include "perfmon/profile.hpp"
