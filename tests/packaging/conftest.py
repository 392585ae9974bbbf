import pytest

from tests.packaging.wheel import Installed, installed_wheel


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory) -> Installed:
    # the parent of a worker's basetemp is shared by every xdist worker of the session
    return installed_wheel(tmp_path_factory.getbasetemp().parent)
