from inspector.demo.server import main

main()
