"""Checks the cutlet_torch extension against PyTorch on a GPU.

Results against torch's own ops on random inputs of odd sizes (outputs poisoned with NaN first);
in place, without copies (no PyTorch allocation during a call, data pointers unchanged, the
memory around a strided output untouched); on PyTorch's current stream (a busy side stream, an
explicit stream=, CUDA graph capture); the __dlpack__ fallback; the errors for wrong arguments.

Run with pytest, or as a script: PYTHONPATH=<the extension's build folder> python test_cutlet_torch.py
"""

import math
import sys

import torch

import cutlet_torch

if __name__ != "__main__" and not torch.cuda.is_available():
    import pytest

    pytest.skip("torch sees no CUDA device", allow_module_level=True)

DTYPES = (torch.float32, torch.float16, torch.bfloat16)


def as_shape(shape):
    return tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)


def random(shape, dtype=torch.float32, seed=0, scale=1.0):
    """Normal random numbers on the GPU, drawn in float32 and rounded to `dtype`."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    return (torch.randn(as_shape(shape), generator=g, device="cuda") * scale).to(dtype)


def poisoned(shape, dtype=torch.float32):
    """An output whose every element is NaN until a kernel writes it."""
    return torch.full(as_shape(shape), math.nan, device="cuda", dtype=dtype)


def expect_error(kind, text, fn, *args, **kwargs):
    """Calls fn and checks that it raises `kind` with `text` in its message."""
    try:
        fn(*args, **kwargs)
    except kind as e:
        assert text in str(e), f"expected {text!r} in the message, got: {e}"
        return
    raise AssertionError(f"{fn.__name__} raised no {kind.__name__} ({text!r})")


class DLPackOnly:
    """A tensor seen only through __dlpack__() (as CuPy or JAX arrays are): no C exchange API."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __dlpack__(self, **kwargs):
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        return self.tensor.__dlpack_device__()


def test_torch_tensors_take_the_exchange_api():
    assert cutlet_torch.uses_exchange_api(torch.empty(1, device="cuda"))
    assert not cutlet_torch.uses_exchange_api(DLPackOnly(torch.empty(1, device="cuda")))


def test_scaled_add_matches_torch():
    shapes = [(1,), (7,), (1000,), (4097,), (3, 5, 7), ((1 << 20) + 3,)]
    for dtype in DTYPES:
        for k, shape in enumerate(shapes):
            x, y = random(shape, dtype, 2 * k), random(shape, dtype, 2 * k + 1)
            out = poisoned(shape, dtype)
            cutlet_torch.scaled_add(out, x, y, 0.375)
            torch.testing.assert_close(out, torch.add(y, x, alpha=0.375), msg=lambda m: f"{dtype} {shape}: {m}")


def test_scaled_add_in_place_and_empty():
    x, y = random(513, seed=3), random(513, seed=4)
    want = torch.add(y, x, alpha=-2.0)
    cutlet_torch.scaled_add(y, x, y, -2.0)  # out is y
    torch.testing.assert_close(y, want)
    twice = x * 2
    cutlet_torch.scaled_add(x, x, x, 1.0)  # out is x, and so is y
    torch.testing.assert_close(x, twice)
    empty = torch.empty(0, device="cuda")
    cutlet_torch.scaled_add(empty, empty, empty, 1.0)


def test_softmax_matches_torch():
    shapes = [(1, 1), (3, 5), (37, 100), (130, 1000), (5, 4097), (64, 8192), (1000, 33)]
    for dtype in DTYPES:
        for k, (rows, cols) in enumerate(shapes):
            x = random((rows, cols), dtype, 10 + k, scale=4.0)
            out = poisoned((rows, cols), dtype)
            cutlet_torch.softmax(out, x)
            want = torch.softmax(x.float(), dim=1).to(dtype)
            torch.testing.assert_close(out, want, msg=lambda m: f"{dtype} {rows}x{cols}: {m}")


def test_softmax_reads_and_writes_strided_views():
    rows, cols = 45, 301
    for dtype in DTYPES:
        # A slice of a wider tensor (row stride 310, starting 5 elements in: unaligned) into a
        # slice of another; the columns around the output slice must stay NaN.
        wide = random((rows, cols + 9), dtype, 20, scale=3.0)
        x = wide[:, 5 : 5 + cols]
        out_wide = poisoned((rows, cols + 3), dtype)
        out = out_wide[:, 1 : 1 + cols]
        cutlet_torch.softmax(out, x)
        torch.testing.assert_close(out, torch.softmax(x.float(), dim=1).to(dtype))
        assert out_wide[:, 0].isnan().all() and out_wide[:, 1 + cols :].isnan().all(), "wrote outside the slice"
        # A transposed tensor (column-major rows).
        xt = random((cols, rows), dtype, 21).t()
        out = poisoned((rows, cols), dtype)
        cutlet_torch.softmax(out, xt)
        torch.testing.assert_close(out, torch.softmax(xt.float(), dim=1).to(dtype))


def test_no_copies():
    x, y = random(100_003, seed=5), random(100_003, seed=6)
    out = poisoned(100_003)
    view = out.view(-1, 1)  # shares out's memory: shows the kernel wrote where the caller's data lies
    wide = random((64, 700), seed=7)
    x2 = wide[:, 3:515]
    out2 = poisoned((64, 512))
    pointers = [t.data_ptr() for t in (x, y, out, x2, out2)]
    cutlet_torch.scaled_add(out, x, y, 2.0)
    cutlet_torch.softmax(out2, x2)  # warm: compiles outside the measured calls
    torch.cuda.synchronize()
    before = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    cutlet_torch.scaled_add(out, x, y, 2.0)
    cutlet_torch.softmax(out2, x2)
    torch.cuda.synchronize()
    assert torch.cuda.max_memory_allocated() == before, "PyTorch allocated memory during the calls (a copy?)"
    assert [t.data_ptr() for t in (x, y, out, x2, out2)] == pointers
    torch.testing.assert_close(view.view(-1), torch.add(y, x, alpha=2.0))


def test_runs_on_the_current_stream():
    # The side stream is busy for tens of milliseconds, then overwrites x; a launch on any other
    # stream would run at once and read the old x (PyTorch's side streams do not wait for the
    # default stream, nor it for them).
    n = 1 << 22
    x_old, x_new, y = random(n, seed=8), random(n, seed=9), random(n, seed=10)
    for use in ("current", "stream=int", "stream=torch.cuda.Stream"):
        x = x_old.clone()
        out = poisoned(n)
        torch.cuda.synchronize()
        side = torch.cuda.Stream()
        with torch.cuda.stream(side):
            torch.cuda._sleep(100_000_000)
            x.copy_(x_new)
            if use == "current":
                cutlet_torch.scaled_add(out, x, y, 2.0)
        if use == "stream=int":
            cutlet_torch.scaled_add(out, x, y, 2.0, stream=side.cuda_stream)
        elif use == "stream=torch.cuda.Stream":
            cutlet_torch.scaled_add(out, x, y, 2.0, stream=side)
        torch.cuda.synchronize()
        torch.testing.assert_close(out, torch.add(y, x_new, alpha=2.0), msg=lambda m: f"{use}: {m}")


def test_cuda_graph_capture():
    x, y = random(10_001, seed=11), random(10_001, seed=12)
    out = poisoned(10_001)
    xs = random((33, 700), seed=13)
    outs = poisoned((33, 700))
    # The first launches trace, compile and load the kernels, which a capture does not allow.
    cutlet_torch.scaled_add(out, x, y, 3.0)
    cutlet_torch.softmax(outs, xs)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        cutlet_torch.scaled_add(out, x, y, 3.0)
        cutlet_torch.softmax(outs, xs)
    x_new, xs_new = random(10_001, seed=14), random((33, 700), seed=15)
    x.copy_(x_new)
    xs.copy_(xs_new)
    out.fill_(math.nan)
    outs.fill_(math.nan)
    graph.replay()
    torch.cuda.synchronize()
    torch.testing.assert_close(out, torch.add(y, x_new, alpha=3.0))
    torch.testing.assert_close(outs, torch.softmax(xs_new, dim=1))


def test_dlpack_fallback_needs_a_stream():
    x, y = random(1001, seed=16), random(1001, seed=17)
    out = poisoned(1001)
    args = (DLPackOnly(out), DLPackOnly(x), DLPackOnly(y), 0.5)
    expect_error(cutlet_torch.Error, "pass stream=", cutlet_torch.scaled_add, *args)
    cutlet_torch.scaled_add(*args, stream=torch.cuda.current_stream().cuda_stream)
    torch.testing.assert_close(out, torch.add(y, x, alpha=0.5))


def test_wrong_arguments_raise():
    E = cutlet_torch.Error
    assert issubclass(E, RuntimeError)
    a = torch.zeros(10, device="cuda")
    add, softmax = cutlet_torch.scaled_add, cutlet_torch.softmax
    expect_error(E, "x has dtype float64", add, a, a.double(), a)
    expect_error(E, "out has dtype int32", add, a.int(), a.int(), a.int())
    expect_error(E, "y has dtype float16 but out has float32", add, a, a, a.half())
    expect_error(E, "x has shape [11] but out has [10]", add, a, torch.zeros(11, device="cuda"), a)
    expect_error(E, "out is in the CPU", add, a.cpu(), a.cpu(), a.cpu())
    expect_error(E, "out is not contiguous", add, a[::2], torch.zeros(10, device="cuda")[::2], a[::2])
    expect_error(TypeError, "x is a list", add, a, [0.0] * 10, a)
    expect_error(TypeError, "stream is a str", add, a, a, a, stream="default")
    m = torch.zeros(4, 8, device="cuda")
    expect_error(E, "takes tensors of 2 dimensions", softmax, a, a)
    expect_error(E, "8193 columns", softmax, torch.zeros(2, 8193, device="cuda"), torch.zeros(2, 8193, device="cuda"))
    expect_error(E, "share memory", softmax, torch.zeros(1, 8, device="cuda").expand(4, 8), m)


def main():
    if not torch.cuda.is_available():
        print("skipped: torch sees no CUDA device")
        return 0
    tests = [f for name, f in globals().items() if name.startswith("test_") and callable(f)]
    for test in tests:
        test()
        print(f"ok  {test.__name__}")
    print(f"cutlet_torch {cutlet_torch.cutlet_version}, torch {torch.__version__}: {len(tests)} tests passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
