#ifndef CCMARK_SHIM_H
#define CCMARK_SHIM_H
#include <stdlib.h>
#include <cmark.h>
#endif
