import JobctlCommands

@main
enum JobctlMain {
    static func main() async {
        await Jobctl.main()
    }
}
