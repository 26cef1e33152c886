#include "program/ir.h"
