"""CUDA graphs through the driver API (libcuda.so.1 via ctypes): capture, replay, errors."""

import ctypes as C

cu = C.CDLL("libcuda.so.1")
N = 1 << 20


def check(name, *args):
    r = getattr(cu, name)(*args)
    if r != 0:
        raise SystemExit(f"{name} returned {r}")


def result(name, value):
    print(f"RESULT {name} {value}")


check("cuInit", 0)
ctx = C.c_void_p()
check("cuDevicePrimaryCtxRetain", C.byref(ctx), 0)
check("cuCtxSetCurrent", ctx)
s = C.c_void_p()
check("cuStreamCreate", C.byref(s), 1)  # CU_STREAM_NON_BLOCKING
p = C.c_uint64()
check("cuMemAlloc_v2", C.byref(p), N)
check("cuMemsetD8_v2", p, 0, N)

check("cuStreamBeginCapture_v2", s, 0)  # CU_STREAM_CAPTURE_MODE_GLOBAL
status = C.c_int(-1)
check("cuStreamIsCapturing", s, C.byref(status))
result("capturing_status", status.value)
check("cuMemsetD8Async", p, 3, N, s)
graph = C.c_void_p()
check("cuStreamEndCapture", s, C.byref(graph))
exe = C.c_void_p()
check("cuGraphInstantiateWithFlags", C.byref(exe), graph, C.c_ulonglong(0))

host = (C.c_ubyte * 16)()
check("cuMemcpyDtoH_v2", host, p, 16)
result("byte_before_replay", host[0])
check("cuGraphLaunch", exe, s)
check("cuStreamSynchronize", s)
check("cuMemcpyDtoH_v2", host, p, 16)
result("byte_after_replay", host[0])
check("cuGraphExecDestroy", exe)
check("cuGraphDestroy", graph)

result("end_not_capturing", cu.cuStreamEndCapture(s, C.byref(graph)))
result("capture_legacy", cu.cuStreamBeginCapture_v2(C.c_void_p(1), 0))  # CU_STREAM_LEGACY

# cuGetProcAddress hands out the same entry points.
for name, symbol in [("cuGraphLaunch", "cuGraphLaunch"),
                     ("cuStreamBeginCapture", "cuStreamBeginCapture_v2"),
                     ("cuStreamGetCaptureInfo", "cuStreamGetCaptureInfo_v3")]:
    fn = C.c_void_p()
    found = C.c_int(0)
    check("cuGetProcAddress_v2", name.encode(), C.byref(fn), 13000, 0, C.byref(found))
    same = fn.value == C.cast(getattr(cu, symbol), C.c_void_p).value
    result(f"proc_{name}", int(same))
result("done", 1)
