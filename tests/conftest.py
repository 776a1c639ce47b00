"""Every test runs in English unless it asks for another language.

The ``arena`` command chooses its language from the locale variables once per process (issue
19), and a developer's shell may well be Korean; tests that assert Korean set ``LANG`` (or
``LANGUAGE``) for the command they start. Set here, before any test module imports ``sandbox``.
"""

import os

for _variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_variable, None)
os.environ["LANG"] = "C.UTF-8"
