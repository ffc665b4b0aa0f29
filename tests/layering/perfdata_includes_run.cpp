// Deliberately wrong-way: perf.data is written by recordings, which sit above it.
#include "perfmon/recording.hpp"
