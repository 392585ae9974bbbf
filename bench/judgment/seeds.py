"""The seeded corpus: AI-typical defects, one per copy of a real package.

Each seed is a few text edits to the pristine sdist (an anchor replaced, or code appended
to a module) and the one place the defect is: a file and the first line holding ``mark``.
Appended code is typed, documented and formatted like the package's own, so the only
thing wrong with it is the defect (and that no test runs it, as with most new code).

Secret-looking values are assembled at run time, so none sits in this file.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

APPEND = ""  # an Edit whose ``old`` is APPEND adds ``new`` at the end of the file


def _letters(count: int, step: int) -> str:
    """A fixed, random-looking run of letters and digits (a fake token's body)."""
    pool = string.ascii_letters + string.digits
    return "".join(pool[(i * step + 11) % len(pool)] for i in range(count))


GITHUB_TOKEN = "gh" + "p_" + _letters(36, 7)
STRIPE_KEY = "sk" + "_live_" + _letters(24, 5)
AWS_KEY = "AK" + "IA" + _letters(16, 3).upper()
PHRASE = "Tr0ub4dor" + "-prod-2024!"
PRIVATE_KEY = (
    "-----BEGIN RSA " + "PRIVATE KEY-----\\n" + _letters(32, 13)
)  # the line stays within 88 columns


@dataclass(frozen=True)
class Edit:
    path: str
    old: str
    new: str


@dataclass(frozen=True)
class Seed:
    id: str
    package: str
    defect: str
    edits: tuple[Edit, ...]
    at: str  # the file the defect is in
    mark: str  # the defect's line is the first line of ``at`` holding this

    def apply(self, read: dict[str, str]) -> dict[str, str]:
        """The edited texts of the files this seed touches, from their pristine ``read``."""
        texts = dict(read)
        for edit in self.edits:
            text = texts[edit.path]
            if edit.old == APPEND:
                texts[edit.path] = text.rstrip("\n") + "\n\n\n" + edit.new
            elif text.count(edit.old) != 1:
                raise ValueError(f"{self.id}: anchor not found once in {edit.path}: {edit.old!r}")
            else:
                texts[edit.path] = text.replace(edit.old, edit.new)
        return texts

    def line(self, text: str) -> int:
        for number, line in enumerate(text.splitlines(), 1):
            if self.mark in line:
                return number
        raise ValueError(f"{self.id}: mark {self.mark!r} not in {self.at}")


def _append(package: str, sid: str, defect: str, path: str, code: str, mark: str) -> Seed:
    return Seed(sid, package, defect, (Edit(path, APPEND, code),), path, mark)


def _replace(package: str, sid: str, defect: str, path: str, old: str, new: str, mark: str) -> Seed:
    return Seed(sid, package, defect, (Edit(path, old, new),), path, mark)


ITS = "itsdangerous"
ITS_SRC = "src/itsdangerous/"
HUM = "humanize"
HUM_SRC = "src/humanize/"

ITSDANGEROUS = (
    _append(
        ITS,
        "its-github-token",
        "hard-coded GitHub token",
        ITS_SRC + "signer.py",
        f'_DEPLOY_TOKEN = "{GITHUB_TOKEN}"\n',
        "_DEPLOY_TOKEN",
    ),
    _append(
        ITS,
        "its-password",
        "hard-coded password",
        ITS_SRC + "timed.py",
        f'ADMIN_PASSWORD = "{PHRASE}"\n',
        "ADMIN_PASSWORD",
    ),
    _append(
        ITS,
        "its-stripe-key",
        "Stripe live key",
        ITS_SRC + "url_safe.py",
        f'_BILLING_KEY = "{STRIPE_KEY}"\n',
        "_BILLING_KEY",
    ),
    _append(
        ITS,
        "its-except-pass",
        "`except Exception: pass`",
        ITS_SRC + "encoding.py",
        'def read_key_file(path: str) -> bytes:\n    """Read a key file."""\n'
        '    try:\n        with open(path, "rb") as f:\n            return f.read()\n'
        '    except Exception:\n        pass\n    return b""\n',
        "except Exception",
    ),
    _append(
        ITS,
        "its-undefined-name",
        "undefined name",
        ITS_SRC + "encoding.py",
        'def header_text(value: bytes) -> str:\n    """Decode a header value."""\n'
        "    return value.decode(encodng)\n",
        "encodng",
    ),
    Seed(
        "its-renamed",
        ITS,
        "renamed public function, one stale caller",
        (
            Edit(ITS_SRC + "encoding.py", "def int_to_bytes(", "def int_as_bytes("),
            Edit(
                "tests/test_itsdangerous/test_encoding.py",
                "from itsdangerous.encoding import int_to_bytes",
                "from itsdangerous.encoding import int_as_bytes",
            ),
            Edit(
                "tests/test_itsdangerous/test_encoding.py",
                "enc = int_to_bytes(value)",
                "enc = int_as_bytes(value)",
            ),
        ),
        ITS_SRC + "timed.py",
        "import int_to_bytes",
    ),
    _append(
        ITS,
        "its-path-traversal",
        "path traversal",
        ITS_SRC + "signer.py",
        "def load_named_key(base_dir: str, name: str) -> bytes:\n"
        '    """Read the key called ``name`` from ``base_dir``."""\n'
        "    import os\n\n"
        '    with open(os.path.join(base_dir, name), "rb") as f:\n'
        "        return f.read()\n",
        "os.path.join(base_dir, name)",
    ),
    _append(
        ITS,
        "its-after-return",
        "code after return",
        ITS_SRC + "encoding.py",
        "def key_length(key: bytes) -> int:\n"
        '    """The key\'s length in bytes."""\n'
        "    return len(key)\n"
        "    key = key.strip()\n",
        "key = key.strip()",
    ),
    _replace(
        ITS,
        "its-off-by-one",
        "off-by-one (age >= max_age)",
        ITS_SRC + "timed.py",
        "            if age > max_age:",
        "            if age >= max_age:",
        "age >= max_age",
    ),
    _replace(
        ITS,
        "its-inverted",
        "inverted condition",
        ITS_SRC + "signer.py",
        "        if self.verify_signature(value, sig):\n            return value",
        "        if not self.verify_signature(value, sig):\n            return value",
        "if not self.verify_signature",
    ),
    _append(
        ITS,
        "its-md5-secret",
        "md5 for a secret",
        ITS_SRC + "signer.py",
        "def fingerprint_secret(secret: str) -> str:\n"
        '    """A short fingerprint of a secret key, for logs."""\n'
        "    return hashlib.md5(secret.encode()).hexdigest()\n",
        "hashlib.md5",
    ),
    _append(
        ITS,
        "its-random-token",
        "`random` for a token",
        ITS_SRC + "serializer.py",
        "def new_session_token() -> str:\n"
        '    """A fresh session token."""\n'
        "    import random\n    import string\n\n"
        '    return "".join(random.choice(string.ascii_letters) for _ in range(32))\n',
        "random.choice",
    ),
    _append(
        ITS,
        "its-no-timeout",
        "requests without timeout",
        ITS_SRC + "url_safe.py",
        "def fetch_signing_key(url: str) -> bytes:\n"
        '    """Download the current signing key."""\n'
        "    import requests\n\n"
        "    return requests.get(url).content\n",
        "requests.get(url)",
    ),
    _append(
        ITS,
        "its-mktemp",
        "tempfile.mktemp",
        ITS_SRC + "timed.py",
        "def scratch_path() -> str:\n"
        '    """A scratch file name for a key rotation."""\n'
        "    import tempfile\n\n"
        "    return tempfile.mktemp()\n",
        "tempfile.mktemp",
    ),
    _append(
        ITS,
        "its-bare-except",
        "bare except",
        ITS_SRC + "_json.py",
        "def try_loads(payload: str) -> t.Any:\n"
        '    """The decoded payload, or None."""\n'
        "    try:\n        return _json.loads(payload)\n"
        "    except:\n        return None\n",
        "except:",
    ),
    _replace(
        ITS,
        "its-unused-import",
        "unused import",
        ITS_SRC + "encoding.py",
        "import base64\nimport string\n",
        "import base64\nimport os\nimport string\n",
        "import os",
    ),
    _replace(
        ITS,
        "its-formatting",
        "formatting",
        ITS_SRC + "encoding.py",
        'string += b"=" * (-len(string) % 4)',
        'string += b"=" * ( -len(string) % 4 )',
        "( -len(string)",
    ),
    _replace(
        ITS,
        "its-dependency",
        "unapproved new dependency",
        "pyproject.toml",
        'requires-python = ">=3.8"\n',
        'requires-python = ">=3.8"\ndependencies = ["requests>=2.31"]\n',
        "dependencies =",
    ),
    _append(
        ITS,
        "its-untested",
        "untested new code",
        ITS_SRC + "encoding.py",
        'def split_token(token: bytes, sep: bytes = b".") -> tuple[bytes, bytes]:\n'
        '    """Split a signed token at its last separator."""\n'
        "    value, _, sig = token.rpartition(sep)\n"
        "    return value, sig\n",
        "value, _, sig",
    ),
)

HUMANIZE = (
    _append(
        HUM,
        "hum-aws-key",
        "hard-coded AWS key",
        HUM_SRC + "i18n.py",
        f'_UPLOAD_KEY_ID = "{AWS_KEY}"\n',
        "_UPLOAD_KEY_ID",
    ),
    _append(
        HUM,
        "hum-private-key",
        "private key in source",
        HUM_SRC + "filesize.py",
        f'_SIGNING_KEY = "{PRIVATE_KEY}"\n',
        "_SIGNING_KEY",
    ),
    _append(
        HUM,
        "hum-eval",
        "eval of input",
        HUM_SRC + "number.py",
        "def parse_number(text: str) -> float:\n"
        '    """Parse a number typed by a user."""\n'
        "    return float(eval(text))\n",
        "eval(text)",
    ),
    _append(
        HUM,
        "hum-shell",
        "subprocess with shell=True",
        HUM_SRC + "filesize.py",
        "def disk_usage(path: str) -> str:\n"
        '    """Disk usage of ``path``, as ``du`` prints it."""\n'
        "    import subprocess\n\n"
        "    return subprocess.run(\n"
        '        f"du -sh {path}", shell=True, capture_output=True, text=True\n'
        "    ).stdout\n",
        "return subprocess.run(",
    ),
    _append(
        HUM,
        "hum-pickle",
        "pickle.loads of input",
        HUM_SRC + "lists.py",
        "def load_items(blob: bytes) -> list[Any]:\n"
        '    """Items sent by a client."""\n'
        "    import pickle\n\n"
        "    return list(pickle.loads(blob))\n",
        "pickle.loads",
    ),
    _append(
        HUM,
        "hum-sql",
        "SQL built from input",
        HUM_SRC + "lists.py",
        "def names_query(table: str, name: str) -> str:\n"
        '    """The query that finds ``name``."""\n'
        "    return f\"SELECT * FROM {table} WHERE name = '{name}'\"\n",
        "SELECT *",
    ),
    _replace(
        HUM,
        "hum-off-by-one",
        "off-by-one (slice)",
        HUM_SRC + "lists.py",
        "for item in items[:-1])",
        "for item in items[:-2])",
        "items[:-2]",
    ),
    _replace(
        HUM,
        "hum-inverted",
        "inverted condition",
        HUM_SRC + "filesize.py",
        'return f"{int(bytes_)}B" if gnu else',
        'return f"{int(bytes_)}B" if not gnu else',
        "if not gnu",
    ),
    _append(
        HUM,
        "hum-assert",
        "assert as validation",
        HUM_SRC + "number.py",
        "def percent(value: float) -> str:\n"
        '    """A fraction as a percentage."""\n'
        "    assert 0 <= value <= 1\n"
        '    return f"{value * 100:.0f}%"\n',
        "assert 0 <= value",
    ),
    _append(
        HUM,
        "hum-type-error",
        "wrong return type",
        HUM_SRC + "number.py",
        "def digits(value: int) -> int:\n"
        '    """How many digits ``value`` has."""\n'
        "    return str(abs(value))\n",
        "return str(abs(value))",
    ),
    _replace(
        HUM,
        "hum-print",
        "debug print left in",
        HUM_SRC + "lists.py",
        "    if len(items) == 1:\n",
        "    print(items)\n    if len(items) == 1:\n",
        "print(items)",
    ),
    _replace(
        HUM,
        "hum-formatting",
        "formatting",
        HUM_SRC + "filesize.py",
        "base = 1024 if (gnu or binary) else 1000",
        "base = 1024 if (gnu or binary)  else 1000",
        "binary)  else",
    ),
    _replace(
        HUM,
        "hum-unused-import",
        "unused import",
        HUM_SRC + "lists.py",
        "from __future__ import annotations\n",
        "from __future__ import annotations\n\nimport os\n",
        "import os",
    ),
)

SEEDS = ITSDANGEROUS + HUMANIZE
