#pragma once
#include <mutex>

// UnlockedRegion: lets other threads of the caller run while this one computes or waits.
//
// Note [Releasing the caller's lock]
// Python calls into the core holding its interpreter lock (the GIL). The core never touches
// Python, so while an op computes, or waits for the device, the lock can be let go and other
// Python threads run (PyTorch and NumPy do the same). The core knows nothing of Python: the
// bindings install two hooks at module initialisation (install_caller_lock_hooks), one that
// lets the lock go when the calling thread holds it and one that takes it back. An
// UnlockedRegion calls them around a piece of work:
//   - cpu::parallel_for opens one when its work is at least one grain (small ops keep the lock:
//     releasing and retaking it costs about as much as a tiny op);
//   - the CUDA backend opens one around every wait for the device (stream, event and device
//     synchronisation, copies to the host, the count of a mask).
// Regions nest: an inner one finds the lock already let go and does nothing, and a thread that
// never held it (an OpenMP worker) does nothing either. Inside a region nothing may call Python:
// the only Python a core object reaches is a foreign storage's deleter (NumPy, DLPack), and
// those take the lock themselves (python/numpy.cpp, python/dlpack.cpp). Exceptions leave a region
// through its destructor, which takes the lock back before pybind11 translates them.
namespace genesis {

struct CallerLockHooks {
  void* (*release)() = nullptr;  // lets the lock go if this thread holds it; its state or null
  void (*reacquire)(void*) = nullptr;  // takes it back given release()'s non-null state
};

// Called once by the bindings; until then regions do nothing (C++ tests, embedding).
void install_caller_lock_hooks(CallerLockHooks hooks);

class UnlockedRegion {
 public:
  UnlockedRegion();
  ~UnlockedRegion();
  UnlockedRegion(const UnlockedRegion&) = delete;
  UnlockedRegion& operator=(const UnlockedRegion&) = delete;

 private:
  void* state_;
};

// Note [Waiting for a lock]
// A thread that holds a mutex of the core may open an UnlockedRegion while it holds it (an
// addition into a leaf's gradient computes in parallel_for), and at the region's end it waits
// for the caller's lock. A second thread that held the caller's lock while it waited for that
// mutex would wait forever, and the first with it (two threads backward into one leaf, or one
// reading .grad during another's backward, hung so). So a thread that may hold the caller's
// lock takes a core mutex through lock_letting_caller_run: at once when the mutex is free,
// and otherwise it lets the caller's lock go while it waits, as any waiter for the device does.
// Every place that takes such a mutex must use it: one blocking wait with the caller's lock
// held is enough to hang.
std::unique_lock<std::mutex> lock_letting_caller_run(std::mutex& mutex);

}  // namespace genesis
