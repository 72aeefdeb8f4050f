// The compile-time checks of cccl_concepts.h alone, for the test cccl.concepts_of_second_cccl,
// which compiles this file (-fsyntax-only) against a CCCL other than the toolkit's.
#include "cccl_concepts.h"
