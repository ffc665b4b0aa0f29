// Deliberately wrong-way: measurements must not see how they are presented.
#include "present/shapes.hpp"
