// The whole cutlet runtime: driver, devices, streams, events, memory, modules and launches.
#pragma once

#include "cutlet/runtime/buffer.h"
#include "cutlet/runtime/cuda_error.h"
#include "cutlet/runtime/device.h"
#include "cutlet/runtime/driver.h"
#include "cutlet/runtime/event.h"
#include "cutlet/runtime/launch.h"
#include "cutlet/runtime/module.h"
#include "cutlet/runtime/stream.h"
