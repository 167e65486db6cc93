# Copyright (c) 2026, fleetqual.pts contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
# SPDX-License-Identifier: GPL-3.0-or-later
"""Stand-in for ansible-test's get-pip bootstrap, whose download host is unreachable here.

ansible-test runs this as ``get_pip.py [pip options] pip==X [--no-setuptools] [--no-wheel]`` inside each
new sanity venv. Bootstrapping pip with ensurepip must happen in a subprocess: in-process it drops
/etc/pip.conf and the following pip install then fails TLS.
"""

from __future__ import annotations

import subprocess
import sys


def main() -> None:
    subprocess.run([sys.executable, "-m", "ensurepip", "--upgrade"], check=True, stdout=subprocess.DEVNULL)
    args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
    subprocess.run([sys.executable, "-m", "pip", "install", "--upgrade"] + args, check=True)


if __name__ == "__main__":
    main()
