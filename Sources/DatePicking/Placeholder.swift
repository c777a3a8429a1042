// replaced by the DatePicking model
