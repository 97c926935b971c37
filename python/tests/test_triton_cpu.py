"""The pytest plugin's CPU mode (python/bankcheck/triton_cpu.py) without Triton: where a launch's
arrays are placed, what the launcher passes the kernel, what it refuses, and the file `bankcheck run
--emulated` reads. Triton's part (compiling, launching in the emulator, the plugin's session) is
examples/python/test_triton_cpu_gate.py's, which ci/jobs/triton-cpu.sh runs."""

import json
import types

import pytest

from bankcheck import triton_cpu

np = pytest.importorskip("numpy", reason="numpy is not installed: the placement is of numpy arrays")


def test_each_array_is_placed_apart_and_aligned_as_the_gpus_allocators_align():
    placement = triton_cpu.Placement()
    a, b = np.zeros(1000, np.float32), np.zeros(3, np.int8)
    first, second = placement.wrap(a), placement.wrap(b)
    assert first.data_ptr() == triton_cpu.FIRST_ADDRESS
    assert second.data_ptr() % triton_cpu.ALIGNMENT == 0 and second.data_ptr() >= first.data_ptr() + a.nbytes
    assert first.dtype == np.float32 and placement.wrap(7) == 7 and placement.wrap(None) is None


def test_views_of_one_array_share_its_memory_at_their_offsets():
    placement = triton_cpu.Placement()
    matrix = np.arange(64, dtype=np.float32).reshape(8, 8)
    whole, row, column = placement.wrap(matrix), placement.wrap(matrix[3]), placement.wrap(matrix[:, 5])
    assert whole.region is row.region is column.region
    assert row.data_ptr() - whole.data_ptr() == 3 * 8 * 4
    assert column.data_ptr() - whole.data_ptr() == 5 * 4
    assert whole.region.size == matrix.nbytes


def test_a_read_only_array_is_refused_saying_so():
    with pytest.raises(triton_cpu.Unsupported, match="read-only numpy array"):
        triton_cpu.Placement().wrap(np.frombuffer(bytes(16), np.float32))  # memory of a bytes object


def launcher(signature, num_ctas=1):
    source = types.SimpleNamespace(signature=signature)
    return triton_cpu.Launcher(source, types.SimpleNamespace(name="k", num_ctas=num_ctas))


def test_the_kernel_gets_its_parameters_without_constexprs_and_arrays_as_addresses():
    placement = triton_cpu.Placement()
    x = placement.wrap(np.zeros(16, np.float32))
    values, regions = launcher({"x": "*fp32", "y": "*fp32", "n": "i32", "BLOCK": "constexpr"}).values(
        [x, None, 16, 1024])
    assert values == [x.data_ptr(), 0, 16]
    assert regions == [x.region]


def test_tensor_descriptors_clusters_and_unplaced_arrays_are_refused():
    with pytest.raises(triton_cpu.Unsupported, match="tensor descriptor"):
        launcher({"desc": "tensordesc<fp16[64, 64]>"}).values([object()])
    with pytest.raises(triton_cpu.Unsupported, match="clusters"):
        launcher({}, num_ctas=2)
    with pytest.raises(triton_cpu.Unsupported, match="without an address"):
        launcher({"x": "*fp32"}).values([np.zeros(4, np.float32)])


def test_the_launches_file_holds_each_launch_with_its_range_and_number(tmp_path):
    launches = triton_cpu.EmulatedLaunches()
    launches.push("test_k.py/test_a")
    launches.push("warmup")
    launches.add({"kernel": "k", "counters": "emulated"}, "")
    launches.pop()
    launches.add({"kernel": "k", "counters": "emulated"}, "not computed: MUFU.RCP")
    path = launches.write(tmp_path)
    assert path.name.startswith("process-") and path.name.endswith(".launches.json")
    written = json.loads(path.read_text())["launches"]
    assert [(launch["nvtx_range"], launch["process_launch"], launch["output"]) for launch in written] == [
        ("test_k.py/test_a/warmup", 1, ""), ("test_k.py/test_a", 2, "not computed: MUFU.RCP")]


def test_tritons_own_sass_tools_are_used_where_none_is_named_or_on_path(tmp_path, monkeypatch):
    tools = tmp_path / "backends" / "nvidia" / "bin"
    tools.mkdir(parents=True)
    for tool in ("cuobjdump", "nvdisasm"):
        (tools / tool).write_text("")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.delenv("BANKCHECK_CUOBJDUMP", raising=False)
    monkeypatch.setenv("BANKCHECK_NVDISASM", "/chosen/nvdisasm")
    triton_cpu.use_tritons_sass_tools(tmp_path)
    assert triton_cpu.os.environ["BANKCHECK_CUOBJDUMP"] == str(tools / "cuobjdump")
    assert triton_cpu.os.environ["BANKCHECK_NVDISASM"] == "/chosen/nvdisasm"
