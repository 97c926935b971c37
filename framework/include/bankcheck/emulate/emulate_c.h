/* The GPU-less emulator as a C library (libbankcheck_emulate_c.so, docs/emulate.md, "The emulator
 * as a library"): load a cubin, name a kernel, give the launch's shape, its parameter bytes and the
 * host buffers that stand for its global memory; get back the launch's record (the results files'
 * per-launch JSON, every kind and source line) and its outputs written into those buffers, or the
 * reason it could not be decided or computed. Plain C: opaque handles, status codes, error strings;
 * no C++ type crosses it, and the library exports these functions alone.
 *
 * Every function returning int returns BANKCHECK_EMU_OK (0) or an error status; then
 * bankcheck_emu_last_error() says why, in the calling thread, until its next call into the library.
 * A handle is used by one thread at a time; distinct handles may be used from distinct threads.
 *
 * An undecided launch or outputs not computed are not errors: the launch ran, and the result says
 * what is not known and why (the emulator is exact or silent, never a guess). */
#ifndef BANKCHECK_EMULATE_C_H_
#define BANKCHECK_EMULATE_C_H_

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the library exports (it is built with hidden visibility otherwise). */
#if defined(__GNUC__)
#define BANKCHECK_EMU_API __attribute__((visibility("default")))
#else
#define BANKCHECK_EMU_API
#endif

/* The version of this interface: a program built against version N runs with a library whose
 * bankcheck_emu_api_version() is N. A new version may add functions; one that changes or removes
 * any says so in CHANGELOG.md and counts up. */
#define BANKCHECK_EMU_API_VERSION 1
BANKCHECK_EMU_API int bankcheck_emu_api_version(void);

enum {
  BANKCHECK_EMU_OK = 0,
  BANKCHECK_EMU_BAD_INPUT = 1, /* a bad argument, module, kernel name, shape or buffer */
  BANKCHECK_EMU_FAILED = 2     /* anything else (the tools could not run, out of memory) */
};

/* The message of the calling thread's last failed call ("" when none failed); valid until its next
 * call into the library. */
BANKCHECK_EMU_API const char* bankcheck_emu_last_error(void);

typedef struct bankcheck_emu_module bankcheck_emu_module;
typedef struct bankcheck_emu_launch bankcheck_emu_launch;
typedef struct bankcheck_emu_result bankcheck_emu_result;

/* A module from a cubin or fatbin image in memory (`size` bytes, copied) or on disk, read with the
 * CUDA toolkit's cuobjdump and nvdisasm (BANKCHECK_CUOBJDUMP / BANKCHECK_NVDISASM, else the toolkit
 * bankcheck was built with, else PATH). BAD_INPUT for bytes that are no cubin or fatbin, or one
 * without sm_90 SASS, naming what to do. */
BANKCHECK_EMU_API int bankcheck_emu_module_load(const void* image, size_t size,
                                                bankcheck_emu_module** module);
BANKCHECK_EMU_API int bankcheck_emu_module_load_file(const char* path, bankcheck_emu_module** module);
BANKCHECK_EMU_API void bankcheck_emu_module_free(bankcheck_emu_module* module); /* NULL: nothing */

/* The module's kernels (mangled names, sorted); a name stays valid while the module lives. NULL past
 * the end. */
BANKCHECK_EMU_API size_t bankcheck_emu_kernel_count(const bankcheck_emu_module* module);
BANKCHECK_EMU_API const char* bankcheck_emu_kernel_name(const bankcheck_emu_module* module, size_t index);

/* A kernel's parameters as its cubin lays them out (EIATTR_KPARAM_INFO): how many, each one's offset
 * and size in the parameter buffer (by ordinal), the buffer's size (the end of its last parameter),
 * and the kernel's static shared memory. BAD_INPUT for a kernel the module does not have, or an
 * index past its parameters. */
BANKCHECK_EMU_API int bankcheck_emu_kernel_params(const bankcheck_emu_module* module, const char* kernel,
                                                  uint32_t* count, uint32_t* param_bytes);
BANKCHECK_EMU_API int bankcheck_emu_kernel_param(const bankcheck_emu_module* module, const char* kernel,
                                                 uint32_t index, uint32_t* offset, uint32_t* size);
BANKCHECK_EMU_API int bankcheck_emu_kernel_static_shared(const bankcheck_emu_module* module,
                                                         const char* kernel, uint32_t* bytes);

/* A launch of `kernel` (its mangled name) of `module`, which must outlive it: grid and block 1x1x1,
 * no dynamic shared memory, no parameters, no buffers until set. BAD_INPUT for a kernel the module
 * does not have. */
BANKCHECK_EMU_API int bankcheck_emu_launch_new(const bankcheck_emu_module* module, const char* kernel,
                                               bankcheck_emu_launch** launch);
BANKCHECK_EMU_API void bankcheck_emu_launch_free(bankcheck_emu_launch* launch); /* NULL: nothing */
BANKCHECK_EMU_API int bankcheck_emu_launch_set_grid(bankcheck_emu_launch* launch, uint32_t x, uint32_t y,
                                                    uint32_t z);
BANKCHECK_EMU_API int bankcheck_emu_launch_set_block(bankcheck_emu_launch* launch, uint32_t x, uint32_t y,
                                                     uint32_t z);
BANKCHECK_EMU_API int bankcheck_emu_launch_set_dynamic_shared(bankcheck_emu_launch* launch, uint32_t bytes);
/* The parameter buffer, as the driver gets it (cuLaunchKernel's CU_LAUNCH_PARAM_BUFFER_POINTER):
 * each parameter's bytes at its offset; a pointer parameter holds a device address (below). Copied.
 * BAD_INPUT unless `size` is the kernel's parameter bytes exactly. */
BANKCHECK_EMU_API int bankcheck_emu_launch_set_params(bankcheck_emu_launch* launch, const void* params,
                                                      size_t size);

/* Buffer flags. */
enum {
  BANKCHECK_EMU_KNOWN = 0, /* its bytes are the kernel's input: loads read them */
  BANKCHECK_EMU_UNKNOWN =
      1 /* its bytes are unknown (an output the kernel fills): loads of them are unknown */
};
/* Maps `size` bytes of host memory at `host` as the kernel's global memory at device address
 * `device_address` (0: the host address itself). The kernel's loads read only mapped bytes, and its
 * stores land only in them: an access anywhere else is unknown (a load) or makes the outputs not
 * computed (a store), never a read or write of other host memory. `host` must stay valid until the
 * launch is freed; its computed outputs are written into it by bankcheck_emu_launch_run. BAD_INPUT
 * for an empty buffer, one whose device range wraps, or one that overlaps a buffer mapped before. */
BANKCHECK_EMU_API int bankcheck_emu_launch_map(bankcheck_emu_launch* launch, uint64_t device_address,
                                               void* host, size_t size, uint32_t flags);
/* The warp instructions the output pass may run (default 250000, as an emulated program's
 * BANKCHECK_EMULATE_OUTPUT_LIMIT; 0 turns it off): past it, the outputs are not computed. */
BANKCHECK_EMU_API int bankcheck_emu_launch_set_output_limit(bankcheck_emu_launch* launch,
                                                            uint64_t warp_instructions);
/* Source lines in the record are named relative to `root` where under it (NULL or "": as the line
 * info names them). */
BANKCHECK_EMU_API int bankcheck_emu_launch_set_source_root(bankcheck_emu_launch* launch, const char* root);

/* Runs the launch: its record decided or not, its outputs computed or not. Where they are computed,
 * the bytes it stored are written into the mapped buffers before it returns (no buffer is touched
 * otherwise). BAD_INPUT for a shape the GPU refuses (an empty grid or block, over 1024 threads, more
 * shared memory than sm_90 has), or parameters not set for a kernel that has some. */
BANKCHECK_EMU_API int bankcheck_emu_launch_run(bankcheck_emu_launch* launch, bankcheck_emu_result** result);
BANKCHECK_EMU_API void bankcheck_emu_result_free(bankcheck_emu_result* result); /* NULL: nothing */

/* 1: decided; its record is bankcheck_emu_result_record_json's. 0: undecided, for the reason of
 * bankcheck_emu_result_undecided. */
BANKCHECK_EMU_API int bankcheck_emu_result_decided(const bankcheck_emu_result* result);
/* The launch's record as results files hold a launch (record_json.h, "counters": "emulated"): the
 * counts of every kind, the per-instruction rows and the per-line table. "" when undecided. */
BANKCHECK_EMU_API const char* bankcheck_emu_result_record_json(const bankcheck_emu_result* result);
BANKCHECK_EMU_API const char* bankcheck_emu_result_undecided(
    const bankcheck_emu_result* result); /* "" when decided */
/* 1: the outputs were computed and written into the buffers; 0: not, for the reason of
 * bankcheck_emu_result_not_computed. */
BANKCHECK_EMU_API int bankcheck_emu_result_computed(const bankcheck_emu_result* result);
BANKCHECK_EMU_API const char* bankcheck_emu_result_not_computed(
    const bankcheck_emu_result* result); /* "" when computed */

#ifdef __cplusplus
}
#endif

#endif /* BANKCHECK_EMULATE_C_H_ */
