#ifndef CCMARK_SHIM_H
#define CCMARK_SHIM_H
#include <stdlib.h>
#include <cmark-gfm.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm-core-extensions.h>
#endif
