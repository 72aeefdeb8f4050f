// The processor a kernel is compiled for: a GPU architecture, or the host CPU.
#pragma once

#include <string>

namespace cutlet {

/// A compilation target: the SM architecture the cubin is linked for, and the PTX that
/// LLVM emits for it. LLVM 19 emits PTX up to sm_90; a newer GPU gets sm_90 PTX, which
/// nvJitLink compiles for the newer architecture (PTX is forward compatible).
struct Target {
  /// SM version, e.g. 90 for sm_90 (the H100/H200), 80 for sm_80 (the A100).
  int sm = 90;
  /// sm_90a rather than sm_90: Hopper's architecture-specific instructions (wgmma, setmaxnreg)
  /// may be used, and the cubin runs on sm_90 devices only (no newer GPU runs it). Only sm_90
  /// has such a variant here.
  bool arch_specific = false;
  /// The host CPU (the CPU device, Device::cpu()): the kernel is lowered by LLVM for the
  /// machine it runs on and run by HostKernel; `sm` and `arch_specific` mean nothing then.
  bool host = false;

  /// The default target without a GPU: sm_90.
  static Target default_target() { return Target{}; }
  /// The target for a device of compute capability `sm` (major * 10 + minor): sm_90a on
  /// Hopper, whose architecture-specific instructions need it, sm_XY elsewhere.
  static Target for_device(int sm) { return Target{sm, sm == 90}; }
  /// The host CPU's target (the CPU device's).
  static Target host_cpu() { return Target{0, false, true}; }
  /// Parses "sm_80", "sm_90", "sm_90a", "90" or "compute_90". Throws cutlet::Error naming the
  /// accepted forms for anything else, or for an SM below 75 (CUDA 13's nvJitLink links
  /// sm_75 and newer).
  static Target from_string(const std::string& s);

  /// "sm_90", "sm_90a", or "host" for the host CPU.
  std::string arch() const { return host ? "host" : "sm_" + std::to_string(sm) + (arch_specific ? "a" : ""); }
  /// The SM that LLVM generates PTX for: min(sm, 90).
  int ptx_sm() const { return sm < 90 ? sm : 90; }
  /// The processor LLVM generates PTX for: "sm_90a" for an architecture-specific target,
  /// else sm_<ptx_sm()>.
  std::string ptx_cpu() const { return arch_specific ? arch() : "sm_" + std::to_string(ptx_sm()); }
  /// The PTX ISA version LLVM writes, e.g. 80 for PTX 8.0.
  int ptx_version() const { return 80; }

  /// The most shared memory one block may use on this architecture, static and dynamic
  /// together, once a launch opts in past 48 KiB (CUDA's sharedMemPerBlockOptin): 227 KiB on
  /// sm_90 and sm_100, 163 KiB on sm_80, 99 KiB on sm_86/89/120, 64 KiB on sm_75; the
  /// host CPU gives a block what an sm_90 GPU does, so that kernels sized for it run.
  int max_shared_per_block() const;
  /// The most static shared memory (__shared__ arrays) a kernel may declare: 48 KiB.
  static constexpr int max_static_shared = 48 * 1024;

  bool operator==(const Target&) const = default;
};

}  // namespace cutlet
