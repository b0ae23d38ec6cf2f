import HTTP1

/// The three ways to script faults: environment (process defaults), request headers (one
/// request) and the control route's JSON body (the next N requests, or until cleared).
extension FaultPlan {
    /// The process defaults from `STUB_*` variables; unset or empty variables keep the default.
    package static func fromEnvironment(_ environment: [String: String]) throws(FaultSettingError) -> FaultPlan {
        var plan = FaultPlan()
        for setting in FaultSetting.allCases {
            guard let text = environment[setting.environmentName], !text.isEmpty else { continue }
            try setting.apply(text: text, source: setting.environmentName, to: &plan)
        }
        return plan
    }

    /// This plan with every `X-Stub-*` header of a request applied on top, field by field.
    package func overridden(by headers: HTTPHeaders) throws(FaultSettingError) -> FaultPlan {
        var plan = self
        for setting in FaultSetting.allCases {
            guard let text = headers[setting.headerName] else { continue }
            try setting.apply(text: text, source: setting.headerName, to: &plan)
        }
        return plan
    }

    /// The header fields that script this plan for one request (for clients and tests).
    package var headers: HTTPHeaders {
        var headers = HTTPHeaders()
        let defaults = FaultPlan()
        if latencyMs != defaults.latencyMs { headers.add(name: FaultSetting.latencyMs.headerName, value: String(latencyMs)) }
        if errorRate != defaults.errorRate { headers.add(name: FaultSetting.errorRate.headerName, value: String(errorRate)) }
        if errorStatus != defaults.errorStatus { headers.add(name: FaultSetting.errorStatus.headerName, value: String(errorStatus)) }
        if let retryAfterSeconds { headers.add(name: FaultSetting.retryAfter.headerName, value: String(retryAfterSeconds)) }
        if hang { headers.add(name: FaultSetting.hang.headerName, value: "true") }
        if resetMidBody { headers.add(name: FaultSetting.reset.headerName, value: "true") }
        if malformedJSON { headers.add(name: FaultSetting.malformed.headerName, value: "true") }
        if oversized { headers.add(name: FaultSetting.oversized.headerName, value: "true") }
        if oversizedBytes != defaults.oversizedBytes {
            headers.add(name: FaultSetting.oversizedBytes.headerName, value: String(oversizedBytes))
        }
        if slowFirstEvery != defaults.slowFirstEvery {
            headers.add(name: FaultSetting.slowFirstEvery.headerName, value: String(slowFirstEvery))
        }
        if slowFirstMs != defaults.slowFirstMs {
            headers.add(name: FaultSetting.slowFirstMs.headerName, value: String(slowFirstMs))
        }
        return headers
    }
}
