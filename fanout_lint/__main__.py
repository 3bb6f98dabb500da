import sys

from fanout_lint.cli.launch import main

sys.exit(main())
