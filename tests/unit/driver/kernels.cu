// Device code the image-parsing tests compile with nvcc (cubin, fat binary, PTX), and the driver
// e2e program loads as a cubin (tests/e2e_driver).
__device__ float g_table[256];
__constant__ int c_values[4];

extern "C" __global__ void add_one(float* x, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += 1.0f + g_table[i & 255] + c_values[i & 3];
}

__global__ void __launch_bounds__(256) reverse_scaled(float* x, float a) {
  __shared__ float tile[512];
  const int i = threadIdx.x;
  tile[i] = x[i] * a;
  __syncthreads();
  x[i] = tile[511 - i];
}

// Enough live doubles indexed at run time to need a stack frame and many registers.
__global__ void spills(double* x) {
  double v[64];
  for (int i = 0; i < 64; ++i) v[i] = x[i * threadIdx.x];
  double s = 0;
  for (int i = 0; i < 64; ++i) s += v[(i * 7 + threadIdx.x) & 63] * v[i];
  x[threadIdx.x] = s;
}
