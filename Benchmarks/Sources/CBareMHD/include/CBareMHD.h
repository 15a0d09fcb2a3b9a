#pragma once
int cbaremhd_placeholder(void);
