// A wrong-way fixture: a header the umbrella names.
#pragma once
