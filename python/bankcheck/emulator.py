"""bankcheck's GPU-less emulator from Python (docs/python.md, "The emulator"; docs/emulate.md, "The
emulator as a library"): a kernel of an sm_90 cubin run on the CPU, its shared-memory conflicts
counted from its SASS and its outputs computed, with no GPU.

    from bankcheck import emulator
    module = emulator.Module("transpose.cubin")          # or the cubin's bytes
    kernel = module.kernel("_Z9transposePKiPii")           # its mangled name (module.kernels lists them)
    out = bytearray(64 * 64 * 4)                           # numpy arrays too, where numpy is installed
    result = kernel.launch(grid=(2, 2), block=(32, 8), args=[matrix, out, 64])
    result.record["shared_ld"]                              # the results files' per-launch counts
    result.computed                                         # True: `out` holds what the kernel stored

A launch is decided or not (`result.undecided` says why), and its outputs computed or not
(`result.not_computed` says why): the emulator is exact or silent, never a guess. It loads the
package's lib/libbankcheck_emulate_c.so (or $BANKCHECK_EMULATE_LIBRARY) with ctypes, and reads SASS
with the CUDA toolkit's cuobjdump and nvdisasm ($BANKCHECK_CUOBJDUMP and $BANKCHECK_NVDISASM, else
the toolkit bankcheck was built with, else PATH).
"""

from __future__ import annotations

import ctypes
import json
import os
import struct
from pathlib import Path
from typing import Any, Mapping, Sequence, Union

API_VERSION = 1  # bankcheck/emulate/emulate_c.h's BANKCHECK_EMU_API_VERSION, which this module is written for
LIBRARY_NAME = "libbankcheck_emulate_c.so"
PACKAGED_LIBRARY = Path(__file__).resolve().parent / "lib" / LIBRARY_NAME
# Where buffers are mapped when no address is given: apart, each aligned as cudaMalloc aligns its
# allocations, so that a kernel's global sectors count as on the GPU.
FIRST_ADDRESS = 0x100000000
ALIGNMENT = 512

_OK, _BAD_INPUT = 0, 1
# What may give a cubin or a parameter buffer its bytes.
Bytes = Union[bytes, bytearray, memoryview]
_KNOWN, _UNKNOWN = 0, 1


class EmulatorError(Exception):
    """A call the emulator refused: bad input (a kernel the module lacks, parameters of the wrong
    size, a cubin cut short) or a failure (the SASS tools could not run); the message says which."""


class _Handle(ctypes.c_void_p):
    pass


_library: ctypes.CDLL | None = None


def library_path() -> str | None:
    """The library this module loads: $BANKCHECK_EMULATE_LIBRARY when set (a build's
    build/lib/libbankcheck_emulate_c.so), else the wheel's own; None when there is none."""
    chosen = os.environ.get("BANKCHECK_EMULATE_LIBRARY")
    if chosen:
        return chosen
    return str(PACKAGED_LIBRARY) if PACKAGED_LIBRARY.is_file() else None


def _declare(library: ctypes.CDLL) -> None:
    handle, size, u32, u64, pointer = _Handle, ctypes.c_size_t, ctypes.c_uint32, ctypes.c_uint64, ctypes.c_void_p
    signatures: dict[str, tuple[Any, list[Any]]] = {
        "bankcheck_emu_api_version": (ctypes.c_int, []),
        "bankcheck_emu_last_error": (ctypes.c_char_p, []),
        "bankcheck_emu_module_load": (ctypes.c_int, [ctypes.c_char_p, size, ctypes.POINTER(handle)]),
        "bankcheck_emu_module_load_file": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(handle)]),
        "bankcheck_emu_module_free": (None, [handle]),
        "bankcheck_emu_kernel_count": (size, [handle]),
        "bankcheck_emu_kernel_name": (ctypes.c_char_p, [handle, size]),
        "bankcheck_emu_kernel_params": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.POINTER(u32),
                                                       ctypes.POINTER(u32)]),
        "bankcheck_emu_kernel_param": (ctypes.c_int, [handle, ctypes.c_char_p, u32, ctypes.POINTER(u32),
                                                      ctypes.POINTER(u32)]),
        "bankcheck_emu_kernel_static_shared": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.POINTER(u32)]),
        "bankcheck_emu_launch_new": (ctypes.c_int, [handle, ctypes.c_char_p, ctypes.POINTER(handle)]),
        "bankcheck_emu_launch_free": (None, [handle]),
        "bankcheck_emu_launch_set_grid": (ctypes.c_int, [handle, u32, u32, u32]),
        "bankcheck_emu_launch_set_block": (ctypes.c_int, [handle, u32, u32, u32]),
        "bankcheck_emu_launch_set_dynamic_shared": (ctypes.c_int, [handle, u32]),
        "bankcheck_emu_launch_set_params": (ctypes.c_int, [handle, ctypes.c_char_p, size]),
        "bankcheck_emu_launch_map": (ctypes.c_int, [handle, u64, pointer, size, u32]),
        "bankcheck_emu_launch_set_output_limit": (ctypes.c_int, [handle, u64]),
        "bankcheck_emu_launch_set_source_root": (ctypes.c_int, [handle, ctypes.c_char_p]),
        "bankcheck_emu_launch_run": (ctypes.c_int, [handle, ctypes.POINTER(handle)]),
        "bankcheck_emu_result_free": (None, [handle]),
        "bankcheck_emu_result_decided": (ctypes.c_int, [handle]),
        "bankcheck_emu_result_record_json": (ctypes.c_char_p, [handle]),
        "bankcheck_emu_result_undecided": (ctypes.c_char_p, [handle]),
        "bankcheck_emu_result_computed": (ctypes.c_int, [handle]),
        "bankcheck_emu_result_not_computed": (ctypes.c_char_p, [handle]),
    }
    for name, (result, arguments) in signatures.items():
        function = getattr(library, name)
        function.restype, function.argtypes = result, arguments


def _lib() -> ctypes.CDLL:
    global _library
    if _library is None:
        path = library_path()
        if path is None:
            raise EmulatorError(f"this bankcheck package has no emulator library ({PACKAGED_LIBRARY}): install the "
                                "wheel (pip install bankcheck), or set BANKCHECK_EMULATE_LIBRARY to a build's "
                                f"build/lib/{LIBRARY_NAME}")
        library = ctypes.CDLL(path)
        _declare(library)
        version = library.bankcheck_emu_api_version()
        if version != API_VERSION:
            raise EmulatorError(f"{path} has version {version} of the emulator's C interface, this module is written "
                                f"for version {API_VERSION}: use the library of the same bankcheck")
        _library = library
    return _library


def _check(status: int) -> None:
    if status != _OK:
        raise EmulatorError(_lib().bankcheck_emu_last_error().decode(errors="replace"))


class Buffer:
    """Host memory standing for global memory: a writable buffer (a bytearray, a C-contiguous numpy
    array, anything with a writable buffer interface) and where the kernel sees it. `known`: its
    bytes are the kernel's input (False: unknown, as memory cudaMalloc gave and nothing wrote).
    `address`: its device address (None: one is chosen, aligned as cudaMalloc aligns)."""

    def __init__(self, data: Any, known: bool = True, address: int | None = None) -> None:
        self.data, self.known, self.address = data, known, address
        view = memoryview(data)
        if view.readonly:
            raise EmulatorError("a read-only buffer (bytes?) cannot stand for global memory the kernel may write: "
                                "give a bytearray or a writable array")
        if not view.c_contiguous:
            raise EmulatorError("a buffer that is not contiguous: give a C-contiguous array (numpy.ascontiguousarray)")
        self.size = view.nbytes
        if self.size == 0:
            raise EmulatorError("an empty buffer: give at least one byte")
        self._view = view.cast("B")
        self._pointer = ctypes.addressof(ctypes.c_char.from_buffer(self._view))


def _is_buffer(value: object) -> bool:
    if isinstance(value, (Buffer, bytearray)):
        return True
    return type(value).__module__ == "numpy" and type(value).__name__ == "ndarray"


class Result:
    """What a launch gave: `decided` with `record` (the results files' JSON of a launch, as a dict:
    every kind's counts, "instructions", "lines") or `undecided` (why not); `computed` (its outputs
    were written into the buffers) or `not_computed` (why not; no buffer was touched)."""

    def __init__(self, decided: bool, record: dict[str, Any] | None, undecided: str, computed: bool,
                 not_computed: str) -> None:
        self.decided, self.record, self.undecided = decided, record, undecided
        self.computed, self.not_computed = computed, not_computed

    def __repr__(self) -> str:
        counts = "undecided: " + self.undecided if not self.decided else "decided"
        outputs = "computed" if self.computed else "not computed: " + self.not_computed
        return f"<bankcheck.emulator.Result {counts}; outputs {outputs}>"


class Kernel:
    """A kernel of a Module: its mangled `name`, its parameters' (offset, size) in the parameter
    buffer (`params`), the buffer's size (`param_bytes`) and its static shared memory."""

    def __init__(self, module: Module, name: str) -> None:
        self.module, self.name = module, name
        raw = name.encode()
        count, size = ctypes.c_uint32(), ctypes.c_uint32()
        _check(_lib().bankcheck_emu_kernel_params(module._handle, raw, ctypes.byref(count), ctypes.byref(size)))
        self.param_bytes = size.value
        self.params: list[tuple[int, int]] = []
        for index in range(count.value):
            offset, length = ctypes.c_uint32(), ctypes.c_uint32()
            _check(_lib().bankcheck_emu_kernel_param(module._handle, raw, index, ctypes.byref(offset),
                                                     ctypes.byref(length)))
            self.params.append((offset.value, length.value))
        shared = ctypes.c_uint32()
        _check(_lib().bankcheck_emu_kernel_static_shared(module._handle, raw, ctypes.byref(shared)))
        self.static_shared_bytes = shared.value

    def pack(self, args: Sequence[Any], addresses: Mapping[int, int]) -> bytes:
        """The parameter buffer of `args`, one per parameter: a buffer becomes its device address (from
        `addresses`, by id), an int its little-endian bytes, a float a float32 or float64 as its
        size says, bytes themselves, None zeros (an unused pointer)."""
        if len(args) != len(self.params):
            raise EmulatorError(f"{len(args)} arguments for {self.name}, which has {len(self.params)} parameters")
        packed = bytearray(self.param_bytes)
        for index, (value, (offset, size)) in enumerate(zip(args, self.params)):
            where = f"argument {index} of {self.name} ({size} bytes)"
            if value is None:
                raw = bytes(size)
            elif _is_buffer(value):
                if size != 8:
                    raise EmulatorError(f"{where}: a buffer for a parameter that is no pointer")
                raw = struct.pack("<Q", addresses[id(value)])
            elif isinstance(value, bool) or isinstance(value, int) or hasattr(value, "__index__"):
                number = int(value)
                if not -(1 << (8 * size - 1)) <= number < (1 << (8 * size)):
                    raise EmulatorError(f"{where}: {number} does not fit")
                raw = (number % (1 << (8 * size))).to_bytes(size, "little")
            elif isinstance(value, float) or hasattr(value, "__float__"):
                if size not in (4, 8):
                    raise EmulatorError(f"{where}: a float for a parameter of neither 4 nor 8 bytes")
                raw = struct.pack("<f" if size == 4 else "<d", float(value))
            elif isinstance(value, (bytes, bytearray, memoryview)):
                raw = bytes(value)
                if len(raw) != size:
                    raise EmulatorError(f"{where}: {len(raw)} bytes given")
            else:
                raise EmulatorError(f"{where}: cannot pass a {type(value).__name__}")
            packed[offset:offset + size] = raw
        return bytes(packed)

    def launch(self, grid: Sequence[int] = (1, 1, 1), block: Sequence[int] = (1, 1, 1),
               args: Sequence[Any] | None = None, params: Bytes | None = None, buffers: Sequence[Any] = (),
               dynamic_shared: int = 0, source_root: str | os.PathLike[str] | None = None,
               output_limit: int | None = None) -> Result:
        """Runs one launch of the kernel and returns its Result. Either `args` (one value per parameter,
        see pack; the buffers among them are mapped, each at an address of its own) or `params` (the raw
        parameter bytes, with pointers to the device addresses of `buffers`, Buffer objects with an
        address). More `buffers` may be mapped besides the args'."""
        grid, block = tuple(grid) + (1,) * (3 - len(grid)), tuple(block) + (1,) * (3 - len(block))
        mapped = [value if isinstance(value, Buffer) else Buffer(value) for value in buffers]
        addresses: dict[int, Buffer] = {}
        if args is not None:
            if params is not None:
                raise EmulatorError("give args or params, not both")
            for value in args:
                if _is_buffer(value) and id(value) not in addresses:
                    buffer = value if isinstance(value, Buffer) else Buffer(value)
                    addresses[id(value)] = buffer
                    mapped.append(buffer)
        next_address = FIRST_ADDRESS
        placed: dict[int, int] = {}  # each buffer's device address, by id
        for buffer in mapped:
            address = next_address if buffer.address is None else buffer.address
            buffer.address = placed[id(buffer)] = address
            next_address = max(next_address, address + buffer.size)
            next_address = (next_address + 4 * ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        if args is not None:
            params = self.pack(args, {key: placed[id(buffer)] for key, buffer in addresses.items()})
        library = _lib()
        launch = _Handle()
        _check(library.bankcheck_emu_launch_new(self.module._handle, self.name.encode(), ctypes.byref(launch)))
        try:
            _check(library.bankcheck_emu_launch_set_grid(launch, *grid))
            _check(library.bankcheck_emu_launch_set_block(launch, *block))
            _check(library.bankcheck_emu_launch_set_dynamic_shared(launch, dynamic_shared))
            if params is not None:
                params = bytes(params)
                _check(library.bankcheck_emu_launch_set_params(launch, params, len(params)))
            for buffer in mapped:
                _check(library.bankcheck_emu_launch_map(launch, buffer.address, buffer._pointer, buffer.size,
                                                        _KNOWN if buffer.known else _UNKNOWN))
            if output_limit is not None:
                _check(library.bankcheck_emu_launch_set_output_limit(launch, output_limit))
            if source_root is not None:
                _check(library.bankcheck_emu_launch_set_source_root(launch, os.fsencode(source_root)))
            result = _Handle()
            _check(library.bankcheck_emu_launch_run(launch, ctypes.byref(result)))
        finally:
            library.bankcheck_emu_launch_free(launch)
        try:
            decided = library.bankcheck_emu_result_decided(result) == 1
            record = json.loads(library.bankcheck_emu_result_record_json(result).decode()) if decided else None
            return Result(decided, record, library.bankcheck_emu_result_undecided(result).decode(),
                          library.bankcheck_emu_result_computed(result) == 1,
                          library.bankcheck_emu_result_not_computed(result).decode())
        finally:
            library.bankcheck_emu_result_free(result)


class Module:
    """The sm_90 SASS of a cubin or fatbin: its bytes (bytes, bytearray, memoryview) or a path."""

    def __init__(self, cubin: Bytes | str | os.PathLike[str]) -> None:
        library = _lib()
        self._handle: _Handle | None = _Handle()
        if isinstance(cubin, (bytes, bytearray, memoryview)):
            image = bytes(cubin)
            _check(library.bankcheck_emu_module_load(image, len(image), ctypes.byref(self._handle)))
        else:
            _check(library.bankcheck_emu_module_load_file(os.fsencode(cubin), ctypes.byref(self._handle)))
        count = library.bankcheck_emu_kernel_count(self._handle)
        self.kernels = [library.bankcheck_emu_kernel_name(self._handle, i).decode() for i in range(count)]

    def kernel(self, name: str) -> Kernel:
        """The kernel of that mangled name; EmulatorError naming the module's kernels when it has none."""
        return Kernel(self, name)

    def __del__(self) -> None:
        handle = getattr(self, "_handle", None)
        if handle and _library is not None:
            _library.bankcheck_emu_module_free(handle)
            self._handle = None
