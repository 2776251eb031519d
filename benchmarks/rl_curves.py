"""The learning curves of docs/rl.md: a wrapper of ``python -m marjolet.rl.curves``
(the runner moved into the package so that it runs from the installed wheel).

    python benchmarks/rl_curves.py run --out build/rl-curves --jobs 9
    python benchmarks/rl_curves.py plot --out build/rl-curves \
        --img docs/img/rl-ppo-curves.png --force
"""

import sys

from marjolet.rl.curves import main

if __name__ == "__main__":
    sys.exit(main())
