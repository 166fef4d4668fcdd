"""asyncssh, imported without the notices its import prints on newer cryptography.

cryptography 51 warns, once per definition, that DSA is deprecated when
asyncssh's modules define their DSA key types at import. quackbox never makes
or accepts a DSA key (the host key is ed25519), and five lines of a
library's notice above the table or above a one-sentence error tell a
player nothing, so the import is made here with that warning ignored, and
every module of the SSH door imports asyncssh from here.
"""

from __future__ import annotations

import warnings

with warnings.catch_warnings():
    # Only the DSA notice: any other warning of asyncssh's import still shows.
    warnings.filterwarnings("ignore", message=r"DSA is deprecated", category=UserWarning)
    import asyncssh

__all__ = ["asyncssh"]
