public enum ObjectGraphVersion { public static let string = "0.1.0" }
