// zlib, for reading CloudWatch Logs' gzip'd exports in inkra-emulator import (EmulatorKit only;
// never linked into bootstrap).
#include <zlib.h>
