"""The command line run in this process, as the CLI tests call it."""

from mocap_io import cli


def run(capsys, *args):
    """main(args) in this process: (exit code, stdout, stderr)."""
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err
