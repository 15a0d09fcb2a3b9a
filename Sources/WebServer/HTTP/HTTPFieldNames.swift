import HTTPTypes

extension HTTPField.Name {
    /// `Referrer-Policy`.
    public static var referrerPolicy: Self { Self("Referrer-Policy")! }
    /// `X-Frame-Options`, the older form of CSP's `frame-ancestors`.
    public static var xFrameOptions: Self { Self("X-Frame-Options")! }
    /// `X-Request-ID`, the identifier the server gives each request and writes in its logs.
    public static var xRequestID: Self { Self("X-Request-ID")! }
}
