@main struct Main { static func main() {} }
