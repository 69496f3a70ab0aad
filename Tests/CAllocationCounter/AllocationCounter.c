#include "AllocationCounter.h"
