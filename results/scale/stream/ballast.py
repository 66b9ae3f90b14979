# Holds all of the GPU's free memory but LEAVE GiB (argv[1]) until killed: a stand-in for a
# larger corpus, so that an auto run's in-memory plan does not fit beside it.
import ctypes, glob, sys, time
libs = glob.glob("/usr/local/cuda*/lib64/libcudart.so*") + glob.glob("/usr/lib/x86_64-linux-gnu/libcudart.so*")
rt = ctypes.CDLL(sorted(libs)[0])
free, total, p = ctypes.c_size_t(), ctypes.c_size_t(), ctypes.c_void_p()
assert rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total)) == 0
take = free.value - int(float(sys.argv[1]) * 2**30)
assert rt.cudaMalloc(ctypes.byref(p), ctypes.c_size_t(take)) == 0
rt.cudaMemGetInfo(ctypes.byref(free), ctypes.byref(total))
print("ballast holds %.2f GiB, %.2f GiB free" % (take / 2**30, free.value / 2**30), flush=True)
time.sleep(3600)
