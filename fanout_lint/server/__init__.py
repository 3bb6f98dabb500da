"""``fanout-lint server``: the Language Server Protocol over stdio.

An editor starts it and sends its unsaved buffers; each change lints the open files of
the workspace folder with the command line's discovery, linking and configuration, the
buffers laid over the files on disk (``regular_files.overlaid``), and publishes the
findings to every open file they touch.

- ``launch.py``: the subcommand; pygls and lsprotocol (the ``server`` extra) are imported
  here and in the modules below only, never by the command line;
- ``protocol.py``: the handlers of the protocol's messages;
- ``workspace.py``: the folders and the open buffers, and the overlay they make;
- ``linting.py``: one lint of a folder's open files; ``scheduler.py``: when lints run
  (debounced, one at a time per folder, off the event loop, time-boxed); ``memo.py``: the
  link facts a folder's lints keep, so a change re-reads only the file that changed;
- ``positions.py``: ``Loc`` lines and columns as the protocol counts them;
- ``diagnostics.py``: findings as diagnostics; ``actions.py``: their quick fixes, the
  file's "fix all" and "suppress here".
"""
