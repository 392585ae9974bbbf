import pytest

from tests.packaging.wheel import Installed, installed_wheel
from tests.shared_builds import session_root


@pytest.fixture(scope="session")
def wheel_venv(tmp_path_factory) -> Installed:
    return installed_wheel(session_root(tmp_path_factory))
