#ifndef CXML2_SHIM_H
#define CXML2_SHIM_H
#include <libxml/xmlversion.h>
/* Debian's libxml2 is built with ICU, whose headers clash with the copy Foundation carries.
   Nothing here uses an encoding handler by value (the only struct whose layout this changes). */
#undef LIBXML_ICU_ENABLED
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/xmlerror.h>
#endif
