#pragma once
// Ctrl-C handling grew into the handling of every stop signal: see StopSignals.h.
#include "StopSignals.h"
