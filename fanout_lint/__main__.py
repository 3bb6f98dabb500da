import sys

from fanout_lint.launch import main

sys.exit(main())
