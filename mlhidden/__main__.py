from mlhidden.cli import main

main()
