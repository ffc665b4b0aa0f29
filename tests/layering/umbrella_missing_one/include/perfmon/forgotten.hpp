// A wrong-way fixture: a header the umbrella forgets.
#pragma once
