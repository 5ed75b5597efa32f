/*
 * Exit-on-error checks for the CUDA test and benchmark programs: CK for
 * CUDA runtime calls, CKW for the project's cuda/ API (error codes that
 * sci_cuda_error_string names); whether a device is there.
 */
#ifndef SCI_TESTS_CUDACHECK_H
#define SCI_TESTS_CUDACHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cuda_runtime_api.h>

#include "cuda/error.h"

#define CK(call)                                                            \
    do {                                                                    \
        cudaError_t e_ = (call);                                            \
        if (e_ != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,   \
                    cudaGetErrorString(e_));                                \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

#define CKW(call)                                                           \
    do {                                                                    \
        int e_ = (call);                                                    \
        if (e_) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,   \
                    sci_cuda_error_string(e_));                             \
            exit(1);                                                        \
        }                                                                   \
    } while (0)

/* In main(): without a usable device, say so and exit 77 (skipped). */
#define REQUIRE_CUDA_DEVICE()                                               \
    do {                                                                    \
        int n_ = 0;                                                         \
        if (cudaGetDeviceCount(&n_) != cudaSuccess || n_ == 0) {            \
            printf("no CUDA device: skipped\n");                           \
            return 77;                                                      \
        }                                                                   \
    } while (0)

/* Whether a CUDA device is usable, asked in a child process: GstCheck
 * forks every test from main(), and a CUDA runtime initialised before a
 * fork is unusable after it. */
static inline int cuda_device_usable_in_child(void) {
    int status = 0;
    pid_t pid = fork();

    if (pid == 0) {
        int n = 0;
        _exit(cudaGetDeviceCount(&n) == cudaSuccess && n > 0 ? 0 : 1);
    }
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
           WEXITSTATUS(status) == 0;
}

#endif
