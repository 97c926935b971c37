"""The fixture save_outputs of this folder's Triton tests.

With BANKCHECK_OUTPUTS_DIR set (benchmarks/triton_device_check.sh sets it for both of its sessions),
a test's output arrays, as the host reads them after its launches, are saved as
BANKCHECK_OUTPUTS_DIR/<test range>/<name>.npy, the test range being the start of its launches' case
names in bankcheck's pytest plugin (its fixture bankcheck_test_range: "test_triton_tutorials.py/
test_vector_add"), so that the device check compares GPU mode's outputs with CPU mode's bit for bit,
test by test. A test saves them before it checks them: an output its check rejects is compared too.
Without the variable nothing is saved, and nothing here needs numpy or the plugin.
"""

import os
from pathlib import Path

import pytest

OUTPUTS_VARIABLE = "BANKCHECK_OUTPUTS_DIR"


@pytest.fixture
def save_outputs(request):
    """save_outputs(name=array, ...): each array saved as <name>.npy where BANKCHECK_OUTPUTS_DIR says."""
    folder = os.environ.get(OUTPUTS_VARIABLE)
    if not folder:
        return lambda **arrays: None
    # The plugin's name for the test (it is loaded wherever the device check runs the tests).
    test_range = request.getfixturevalue("bankcheck_test_range")

    def save(**arrays):
        import numpy as np

        target = Path(folder, *test_range.split("/"))
        target.mkdir(parents=True, exist_ok=True)
        for name, array in arrays.items():
            np.save(target / f"{name}.npy", np.asarray(array), allow_pickle=False)

    return save
