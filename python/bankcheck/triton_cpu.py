"""The pytest plugin's CPU mode (docs/python.md, "CPU mode"): a test's Triton launches, with CPU arrays,
run in bankcheck's emulator instead of on a GPU.

    kernel[grid](x, y, out, n, BLOCK=256)     # x, y, out: numpy arrays or torch CPU tensors

How: Triton's runtime takes its driver from `triton.runtime.driver.active`, which may be replaced
(`set_active`). EmulatedDriver stands in for the CUDA driver: its target is sm_90 (Triton then
compiles each kernel for sm_90, which needs no GPU: its own ptxas makes the cubin), its "binary
loader" keeps the cubin, and its launcher runs the launch in bankcheck.emulator, with the arrays'
host memory mapped as the kernel's global memory, so that what the kernel stores lands in the
arrays and the test's own asserts check it. Triton specializes a kernel on its pointer arguments'
alignment and reads them through `.data_ptr()`, which numpy arrays lack and which for a torch CPU
tensor is a host address: JITFunction.run is wrapped to hand Triton a DeviceArray for each, whose
data_ptr() is the address the kernel sees, aligned as the GPU's allocators align (so that the same
code is compiled and the same sectors counted as on the GPU).

Each decided launch is kept with the NVTX range it ran in (the plugin's range of the test) and
written, when the session ends, to BANKCHECK_RUN_DIR/process-<pid>.launches.json for `bankcheck run
--emulated`, which names the cases, checks them against the baselines and decides, as it does for a
GPU run. A launch the emulator cannot decide skips its test with the reason; a decided launch whose
outputs were not computed is a case, and a failure of the test after it is reported as a skip
naming why (the kernel did not run, so its outputs are not checked), as the C++ emulated suites do.

What it cannot do: tensor descriptors (TMA), timing (@triton.autotune with more than one
configuration, triton.testing.do_bench), clusters (num_ctas > 1), GPU tensors.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Sequence

from . import emulator

# Triton's target in CPU mode: the emulator's architecture.
ARCH, WARP_SIZE = 90, 32
# The H100's limits, which Triton checks a compiled kernel against (shared memory per block, opt-in).
DEVICE_PROPERTIES = {"max_shared_mem": 232448, "multiprocessor_count": 132, "max_num_regs": 65536,
                     "warpSize": WARP_SIZE, "sm_clock_rate": 1980000, "mem_clock_rate": 2619000,
                     "mem_bus_width": 5120}
# How the skip of a test whose launch the emulator cannot decide begins.
SKIP_PREFIX = "bankcheck: emulated: "
# The file each process writes for `bankcheck run --emulated` (EmulatedProcessResults, run_cases.h).
LAUNCHES_FILE = "process-{pid}.launches.json"
# Where the arrays of one launch are placed: apart, each aligned as PyTorch's caching allocator
# aligns its blocks (512 bytes, more than cudaMalloc's 256), so that Triton specializes on the same
# alignment and the emulator counts the same sectors as on the GPU.
FIRST_ADDRESS, ALIGNMENT = emulator.FIRST_ADDRESS, 512


class Unsupported(Exception):
    """A launch CPU mode cannot run (tensor descriptors, clusters, a GPU tensor): the test fails
    with the reason."""


class Region:
    """The host memory an array lies in (its owner's: a view's base, a tensor's storage), mapped once
    per launch at `address` however many arguments point into it."""

    def __init__(self, pointer: int, size: int, keep: object) -> None:
        self.pointer, self.size, self.keep = pointer, size, keep  # keep: the owner, alive while mapped
        self.address = 0

    def buffer(self) -> emulator.Buffer:
        data = (ctypes.c_uint8 * self.size).from_address(self.pointer)
        return emulator.Buffer(data, address=self.address)


class DeviceArray:
    """What Triton is given for a CPU array: its dtype, and data_ptr() the address the kernel sees."""

    def __init__(self, array: object, dtype: object, region: Region, offset: int) -> None:
        self.array, self.dtype, self.region, self.offset = array, dtype, region, offset

    def data_ptr(self) -> int:
        return self.region.address + self.offset


def _numpy_region(array: Any) -> tuple[int, int, object]:
    """(pointer, size, owner) of the memory a numpy array lies in: its outermost numpy base's."""
    owner = array
    while getattr(owner, "base", None) is not None and type(owner.base).__module__ == "numpy":
        owner = owner.base
    if not owner.flags.c_contiguous:
        owner = array
    if not owner.flags.writeable:
        raise Unsupported("a read-only numpy array (of a bytes object?): give a writable copy")
    return int(owner.ctypes.data), int(owner.nbytes), owner


def _torch_region(tensor: Any) -> tuple[int, int, object]:
    if tensor.device.type != "cpu":
        raise Unsupported(f"a tensor on {tensor.device}: CPU mode runs kernels on CPU tensors")
    storage = tensor.untyped_storage()
    return int(storage.data_ptr()), int(storage.nbytes()), storage


def _is_numpy_array(value: object) -> bool:
    return type(value).__module__ == "numpy" and type(value).__name__ == "ndarray"


def _is_torch_tensor(value: object) -> bool:
    return type(value).__module__.startswith("torch") and hasattr(value, "untyped_storage")


class Placement:
    """The device addresses of one launch's arrays: each region once, FIRST_ADDRESS onwards."""

    def __init__(self) -> None:
        self.regions: dict[int, Region] = {}  # by host pointer
        self.next_address = FIRST_ADDRESS

    def wrap(self, value: Any) -> Any:
        if _is_numpy_array(value):
            pointer, size, owner = _numpy_region(value)
            here, dtype = int(value.ctypes.data), value.dtype
        elif _is_torch_tensor(value):
            pointer, size, owner = _torch_region(value)
            here, dtype = int(value.data_ptr()), value.dtype
        else:
            return value
        region = self.regions.get(pointer)
        if region is None or region.size < size:
            region = self.regions[pointer] = Region(pointer, max(size, 1), owner)
            region.address = self.next_address
            self.next_address = (self.next_address + region.size + 4 * ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        return DeviceArray(value, dtype, region, here - pointer)


class EmulatedLaunches:
    """The decided launches of this process, in launch order, and the range they ran in."""

    def __init__(self) -> None:
        self.ranges: list[str] = []
        self.launches: list[dict[str, Any]] = []
        self.count = 0
        # Why the outputs of a launch of the running test were not computed (its kernel named), or "".
        self.not_computed = ""

    def push(self, name: str) -> None:
        self.ranges.append(name)

    def pop(self) -> None:
        self.ranges.pop()

    def add(self, record: dict[str, Any], output: str) -> None:
        self.count += 1
        self.launches.append({"nvtx_range": "/".join(self.ranges), "process_launch": self.count,
                              "output": output, "record": record})

    def write(self, folder: str | os.PathLike[str]) -> Path:
        path = Path(folder) / LAUNCHES_FILE.format(pid=os.getpid())
        temporary = path.with_suffix(".tmp")
        temporary.write_text(json.dumps({"launches": self.launches}))
        temporary.replace(path)
        return path


class Launcher:
    """Triton's launcher for one compiled kernel (driver.launcher_cls): runs each launch in the emulator."""

    def __init__(self, src: Any, metadata: Any) -> None:
        self.metadata = metadata
        self.types = list(src.signature.values())  # every parameter's, in order, "constexpr" included
        if getattr(metadata, "num_ctas", 1) != 1:
            raise Unsupported(f"{metadata.name}: num_ctas={metadata.num_ctas} (clusters): the emulator runs one CTA "
                              "per cluster only")

    def __call__(self, grid_x: int, grid_y: int, grid_z: int, stream: Any, function: Any, kernel_metadata: Any,
                 launch_metadata: Any, enter_hook: Callable[[Any], None] | None,
                 exit_hook: Callable[[Any], None] | None, *args: Any) -> None:
        driver = _state()
        if enter_hook is not None:
            enter_hook(launch_metadata)
        driver.launch(self, (grid_x, grid_y, grid_z), function, args)
        if exit_hook is not None:
            exit_hook(launch_metadata)

    def values(self, args: Sequence[Any]) -> tuple[list[Any], list[Region]]:
        """The kernel's parameter values (constexprs dropped, arrays as device addresses, Triton's
        two scratch pointers after them) and the regions the arrays lie in."""
        values: list[Any] = []
        regions: dict[int, Region] = {}
        for kind, value in zip(self.types, args):
            if kind == "constexpr":
                continue
            if isinstance(kind, str) and kind.startswith("tensordesc"):
                raise Unsupported(f"{self.metadata.name}: a tensor descriptor (TMA) argument: CPU mode cannot "
                                  "run kernels that take them")
            if not isinstance(kind, str):
                raise Unsupported(f"{self.metadata.name}: a tuple argument ({kind}): not supported in CPU mode")
            if isinstance(value, DeviceArray):
                regions[id(value.region)] = value.region
                values.append(value.data_ptr())
            elif _is_numpy_array(value) or _is_torch_tensor(value):
                raise Unsupported(f"{self.metadata.name}: an array reached the launch without an address "
                                  "(a launch outside JITFunction.run?)")
            elif kind.startswith("*") and value is None:
                values.append(0)
            else:
                values.append(value)
        return values, list(regions.values())


class EmulatedDriver:
    """triton.runtime.driver's active driver in CPU mode (DriverBase's interface): sm_90, no device."""

    def __init__(self, launches: EmulatedLaunches, source_root: str | None) -> None:
        self.launches, self.source_root = launches, source_root
        self.utils = self
        self.launcher_cls = Launcher
        self.cubins: list[tuple[str, bytes]] = []
        self.modules: dict[int, emulator.Module] = {}

    # DriverBase
    @classmethod
    def is_active(cls) -> bool:
        return True

    def get_current_target(self) -> Any:
        return importlib.import_module("triton.backends.compiler").GPUTarget("cuda", ARCH, WARP_SIZE)

    def get_active_torch_device(self) -> Any:
        return importlib.import_module("torch").device("cpu")

    def get_benchmarker(self) -> Any:
        raise Unsupported("CPU mode cannot time kernels (@triton.autotune with several configurations, "
                          "do_bench): give the test one configuration")

    def map_python_to_cpp_type(self, ty: str) -> str:
        raise Unsupported("CPU mode builds no host launcher")

    def get_current_device(self) -> int:
        return 0

    def set_current_device(self, device: int) -> None:
        pass

    def get_current_stream(self, device: int | None = None) -> int:
        return 0

    def get_device_capability(self, device: int = 0) -> tuple[int, int]:
        return ARCH // 10, ARCH % 10

    # The utils Triton's CompiledKernel calls (driver.utils).
    def get_device_properties(self, device: int) -> dict[str, int]:
        return dict(DEVICE_PROPERTIES)

    def load_binary(self, name: str, cubin: bytes, shared: int, device: int) -> tuple[int, int, int, int, int]:
        """(module, function, registers, spills, most threads): the function is the cubin's index here."""
        self.cubins.append((name, bytes(cubin)))
        return len(self.cubins), len(self.cubins) - 1, 0, 0, 1024

    def unload_module(self, module: int) -> None:
        pass

    def set_printf_fifo_size(self, size: int) -> None:
        pass

    def kernel(self, function: int) -> emulator.Kernel:
        module = self.modules.get(function)
        if module is None:
            module = self.modules[function] = emulator.Module(self.cubins[function][1])
        return module.kernel(self.cubins[function][0])

    def launch(self, launcher: Launcher, grid: tuple[int, int, int], function: int, args: Sequence[Any]) -> None:
        metadata = launcher.metadata
        values, regions = launcher.values(args)
        buffers = [region.buffer() for region in regions]
        scratch_end = max([FIRST_ADDRESS] + [region.address + region.size for region in regions])
        blocks = grid[0] * grid[1] * grid[2]
        for size_name in ("global_scratch_size", "profile_scratch_size"):
            size = getattr(metadata, size_name, 0) or 0
            if size == 0:
                values.append(None)
                continue
            address = (scratch_end + 4 * ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
            buffers.append(emulator.Buffer(bytearray(size * blocks), known=False, address=address))
            scratch_end = address + size * blocks
            values.append(address)
        kernel = self.kernel(function)
        result = kernel.launch(grid=grid, block=(WARP_SIZE * metadata.num_warps,), params=kernel.pack(values, {}),
                               buffers=buffers, dynamic_shared=metadata.shared, source_root=self.source_root)
        if not result.decided:
            pytest = importlib.import_module("pytest")
            pytest.skip(f"{SKIP_PREFIX}{metadata.name} cannot be decided by the emulator: {result.undecided}")
        output = "" if result.computed else "not computed: " + result.not_computed
        if not result.computed and not self.launches.not_computed:
            self.launches.not_computed = f"{metadata.name}: {result.not_computed}"
        assert result.record is not None
        self.launches.add(result.record, output)


_driver: EmulatedDriver | None = None


def _state() -> EmulatedDriver:
    if _driver is None:
        raise RuntimeError("bankcheck: CPU mode is not installed (bankcheck.triton_cpu.install)")
    return _driver


def use_tritons_sass_tools(triton_folder: Path) -> None:
    """Triton's wheel carries the CUDA toolkit's cuobjdump and nvdisasm (backends/nvidia/bin), which
    the emulator reads SASS with: used where BANKCHECK_CUOBJDUMP / BANKCHECK_NVDISASM name none and
    PATH has none, so that CPU mode needs no toolkit."""
    for tool in ("cuobjdump", "nvdisasm"):
        variable = f"BANKCHECK_{tool.upper()}"
        bundled = triton_folder / "backends" / "nvidia" / "bin" / tool
        if not os.environ.get(variable) and not shutil.which(tool) and bundled.is_file():
            os.environ[variable] = str(bundled)


def install(launches: EmulatedLaunches, source_root: str | None = None) -> EmulatedDriver:
    """Makes Triton compile for sm_90 and launch in the emulator, in this process; returns the driver."""
    global _driver
    triton = importlib.import_module("triton")
    use_tritons_sass_tools(Path(str(triton.__file__)).parent)
    jit = importlib.import_module("triton.runtime.jit")
    _driver = EmulatedDriver(launches, source_root)
    triton.runtime.driver.set_active(_driver)
    original = jit.JITFunction.run
    if not getattr(original, "_bankcheck_cpu", False):
        def run(self: Any, *args: Any, grid: Any, warmup: bool, **kwargs: Any) -> Any:
            placement = Placement()
            args = tuple(placement.wrap(value) for value in args)
            kwargs = {name: placement.wrap(value) for name, value in kwargs.items()}
            return original(self, *args, grid=grid, warmup=warmup, **kwargs)

        run._bankcheck_cpu = True  # type: ignore[attr-defined]
        jit.JITFunction.run = run
    return _driver
