/*
 * The few CUDA runtime calls that parity_dwt.c and cuda/j2k/dwt.cu make, done
 * on the host, for the emulated parity test (tests/j2k/dwt_emu.cpp): device
 * memory is host memory, streams and events are synchronous.  Lets CI, which
 * has no GPU, run the kernels' tile logic against the C reference.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

cudaError_t
cudaGetDeviceCount (int *n)
{
  *n = 1;
  return cudaSuccess;
}

cudaError_t
cudaGetDevice (int *d)
{
  *d = 0;
  return cudaSuccess;
}

/* One device, 0. */
cudaError_t
cudaSetDevice (int d)
{
  return d == 0 ? cudaSuccess : cudaErrorInvalidDevice;
}

/* An H100's: its compute capability and multiprocessor count. */
cudaError_t
cudaDeviceGetAttribute (int *v, enum cudaDeviceAttr a, int d)
{
  (void) d;
  *v = a == cudaDevAttrComputeCapabilityMajor ? 9 : 132;
  return cudaSuccess;
}

/* Filled with a pattern, so a read of memory no kernel wrote shows. */
cudaError_t
cudaMalloc (void **p, size_t n)
{
  *p = malloc (n ? n : 1);
  if (!*p)
    return cudaErrorMemoryAllocation;
  memset (*p, 0xa5, n);
  return cudaSuccess;
}

cudaError_t
cudaFree (void *p)
{
  free (p);
  return cudaSuccess;
}

cudaError_t
cudaMemcpy (void *d, const void *s, size_t n, enum cudaMemcpyKind k)
{
  (void) k;
  memcpy (d, s, n);
  return cudaSuccess;
}

cudaError_t
cudaMemset (void *d, int v, size_t n)
{
  memset (d, v, n);
  return cudaSuccess;
}

cudaError_t
cudaStreamCreate (cudaStream_t * s)
{
  *s = (cudaStream_t) 0x1;
  return cudaSuccess;
}

cudaError_t
cudaStreamCreateWithFlags (cudaStream_t * s, unsigned int flags)
{
  (void) flags;
  return cudaStreamCreate (s);
}

/* Priorities order nothing where streams are synchronous. */
cudaError_t
cudaDeviceGetStreamPriorityRange (int *least, int *greatest)
{
  *least = 0;
  *greatest = 0;
  return cudaSuccess;
}

cudaError_t
cudaStreamCreateWithPriority (cudaStream_t * s, unsigned int flags,
    int priority)
{
  (void) priority;
  return cudaStreamCreateWithFlags (s, flags);
}

cudaError_t
cudaStreamDestroy (cudaStream_t s)
{
  (void) s;
  return cudaSuccess;
}

cudaError_t
cudaStreamSynchronize (cudaStream_t s)
{
  (void) s;
  return cudaSuccess;
}

cudaError_t
cudaGetLastError (void)
{
  return cudaSuccess;
}

const char *
cudaGetErrorString (cudaError_t e)
{
  return e ? "emulated CUDA error" : "no error";
}

struct emu_event
{
  double ms;
};

static double
now_ms (void)
{
  struct timespec t;
  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

cudaError_t
cudaEventCreate (cudaEvent_t * e)
{
  *e = (cudaEvent_t) calloc (1, sizeof (struct emu_event));
  return *e ? cudaSuccess : cudaErrorMemoryAllocation;
}

cudaError_t
cudaEventDestroy (cudaEvent_t e)
{
  free (e);
  return cudaSuccess;
}

cudaError_t
cudaEventRecord (cudaEvent_t e, cudaStream_t s)
{
  (void) s;
  ((struct emu_event *) e)->ms = now_ms ();
  return cudaSuccess;
}

cudaError_t
cudaStreamWaitEvent (cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
  (void) s;
  (void) e;
  (void) flags;
  return cudaSuccess;
}

cudaError_t
cudaEventSynchronize (cudaEvent_t e)
{
  (void) e;
  return cudaSuccess;
}

cudaError_t
cudaEventElapsedTime (float *ms, cudaEvent_t a, cudaEvent_t b)
{
  *ms = (float) (((struct emu_event *) b)->ms - ((struct emu_event *) a)->ms);
  return cudaSuccess;
}

cudaError_t
cudaDeviceSynchronize (void)
{
  return cudaSuccess;
}

/* For cuda/j2k/htj2k.cu: copies are synchronous, pinned memory is malloc'd. */
cudaError_t
cudaMemcpyAsync (void *d, const void *s, size_t n, enum cudaMemcpyKind k,
    cudaStream_t st)
{
  (void) k;
  (void) st;
  memcpy (d, s, n);
  return cudaSuccess;
}

/* Pinned allocations are remembered, so that cudaPointerGetAttributes can
 * tell them from pageable memory (cuda/j2k/htj2k.cu takes another path). */
struct emu_pinned
{
  char *p;
  size_t n;
  struct emu_pinned *next;
};
static struct emu_pinned *emu_pinned_list;

cudaError_t
cudaMallocHost (void **p, size_t n)
{
  struct emu_pinned *r = malloc (sizeof (*r));
  *p = malloc (n ? n : 1);
  if (!*p || !r)
    {
      free (*p);
      free (r);
      *p = NULL;
      return cudaErrorMemoryAllocation;
    }
  memset (*p, 0x5a, n);
  r->p = *p;
  r->n = n ? n : 1;
  r->next = emu_pinned_list;
  emu_pinned_list = r;
  return cudaSuccess;
}

cudaError_t
cudaFreeHost (void *p)
{
  for (struct emu_pinned **r = &emu_pinned_list; *r; r = &(*r)->next)
    if ((*r)->p == p)
      {
        struct emu_pinned *d = *r;
        *r = d->next;
        free (d);
        break;
      }
  free (p);
  return cudaSuccess;
}

cudaError_t
cudaPointerGetAttributes (struct cudaPointerAttributes *a, const void *p)
{
  memset (a, 0, sizeof (*a));
  a->type = cudaMemoryTypeUnregistered;
  for (struct emu_pinned *r = emu_pinned_list; r; r = r->next)
    if ((const char *) p >= r->p && (const char *) p < r->p + r->n)
      a->type = cudaMemoryTypeHost;
  return cudaSuccess;
}

cudaError_t
cudaEventCreateWithFlags (cudaEvent_t * e, unsigned int flags)
{
  (void) flags;
  return cudaEventCreate (e);
}

/* For cuda/dpcm/dpcm.cu. */
cudaError_t
cudaMemsetAsync (void *d, int v, size_t n, cudaStream_t st)
{
  (void) st;
  memset (d, v, n);
  return cudaSuccess;
}

cudaError_t
cudaMemcpy2DAsync (void *d, size_t dpitch, const void *s, size_t spitch,
    size_t width, size_t height, enum cudaMemcpyKind k, cudaStream_t st)
{
  (void) k;
  (void) st;
  for (size_t y = 0; y < height; y++)
    memcpy ((char *) d + y * dpitch, (const char *) s + y * spitch, width);
  return cudaSuccess;
}
