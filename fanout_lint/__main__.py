import sys

from fanout_lint.cli import main

sys.exit(main())
