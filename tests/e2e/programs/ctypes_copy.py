"""Python program using the CUDA runtime through ctypes, timed with time.perf_counter_ns.

Copies 64 MiB from a pageable ctypes buffer to the device with a blocking cudaMemcpy, then
cudaDeviceSynchronize, and prints RESULT lines like the CUDA test programs.
"""

import ctypes
import time

N = 64 << 20
cudart = ctypes.CDLL("libcudart.so.13")
cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
cudart.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
cudart.cudaDeviceSynchronize.argtypes = []
cudart.cudaFree.argtypes = [ctypes.c_void_p]
for f in (cudart.cudaMalloc, cudart.cudaMemcpy, cudart.cudaDeviceSynchronize, cudart.cudaFree):
    f.restype = ctypes.c_int

device = ctypes.c_void_p()
assert cudart.cudaMalloc(ctypes.byref(device), N) == 0
host = ctypes.create_string_buffer(N)
assert cudart.cudaDeviceSynchronize() == 0

t0 = time.perf_counter_ns()
rc_copy = cudart.cudaMemcpy(device, host, N, 1)  # cudaMemcpyHostToDevice
rc_sync = cudart.cudaDeviceSynchronize()
t1 = time.perf_counter_ns()

p0 = time.perf_counter()
rc_copy2 = cudart.cudaMemcpy(host, device, N, 2)  # cudaMemcpyDeviceToHost
p1 = time.perf_counter()

print(f"RESULT copy_rc {rc_copy}")
print(f"RESULT sync_rc {rc_sync}")
print(f"RESULT copy2_rc {rc_copy2}")
print(f"RESULT h2d_perf_counter_ns {t1 - t0}")
print(f"RESULT d2h_perf_counter_s {p1 - p0:.9f}")
print(f"RESULT time_time_s {int(time.time())}")
assert cudart.cudaFree(device) == 0
