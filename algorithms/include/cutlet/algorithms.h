// cutlet's parallel algorithms: reduce, segmented_reduce, transform, inclusive and exclusive scans,
// select_if, select_flagged, three_way_partition, unique, unique_by_key, run_length_encode,
// histogram_even, histogram_range, lower_bound, upper_bound, top_k, radix_sort_keys and
// radix_sort_pairs, segmented_radix_sort_keys and _pairs, merge_sort_keys and merge_sort_pairs over
// Buffers and iterators, written in cutlet's SIMT language, the user's operator traced and inlined
// into each kernel. Include this one header; link cutlet::cutlet.
#pragma once

#include "cutlet/algorithms/bounds.h"
#include "cutlet/algorithms/element.h"
#include "cutlet/algorithms/histogram.h"
#include "cutlet/algorithms/merge_sort.h"
#include "cutlet/algorithms/operators.h"
#include "cutlet/algorithms/partition.h"
#include "cutlet/algorithms/radix_sort.h"
#include "cutlet/algorithms/reduce.h"
#include "cutlet/algorithms/run_length_encode.h"
#include "cutlet/algorithms/scan.h"
#include "cutlet/algorithms/scan_by_key.h"
#include "cutlet/algorithms/select.h"
#include "cutlet/algorithms/top_k.h"
#include "cutlet/algorithms/segmented_radix_sort.h"
#include "cutlet/algorithms/segmented_reduce.h"
#include "cutlet/algorithms/transform.h"
#include "cutlet/algorithms/unique.h"
#include "cutlet/algorithms/workspace.h"
