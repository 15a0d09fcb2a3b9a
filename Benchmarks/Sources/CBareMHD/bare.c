#include "CBareMHD.h"
int cbaremhd_placeholder(void) { return 0; }
