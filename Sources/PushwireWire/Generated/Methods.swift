// generated — do not edit. Source: Protos/pushwire/v1/*.proto. Regenerate with Scripts/generate.

/// Every method of the Pushwire protocol, by service, with its request and response types.
public enum Methods {
    /// Manages applications. Every method needs the server's admin token
    /// (`authorization: Bearer <admin token>`).
    public enum Admin {
        /// Creates an application; returns its code and its access token (shown only here).
        public static let createApplication = MethodDescriptor<CreateApplicationRequest, CreateApplicationResponse>(
            service: "pushwire.v1.Admin", method: "CreateApplication"
        )
        /// Renames an application, replaces its APNs settings, or rotates its access token.
        public static let updateApplication = MethodDescriptor<UpdateApplicationRequest, UpdateApplicationResponse>(
            service: "pushwire.v1.Admin", method: "UpdateApplication"
        )
        /// Lists every application, in creation order.
        public static let listApplications = MethodDescriptor<ListApplicationsRequest, ListApplicationsResponse>(
            service: "pushwire.v1.Admin", method: "ListApplications"
        )

        /// Every method of `pushwire.v1.Admin`, in `.proto` order.
        public static let all: [AnyMethodDescriptor] = [createApplication.erased, updateApplication.erased, listApplications.erased]
    }

    /// Manages an application's categories. Every method needs the application's access token
    /// (`authorization: Bearer <token>`). Every change bumps the application's categories version.
    public enum Categories {
        /// Creates a category (category_id 0) or replaces an existing one (category_id set).
        public static let upsertCategory = MethodDescriptor<UpsertCategoryRequest, UpsertCategoryResponse>(
            service: "pushwire.v1.Categories", method: "UpsertCategory"
        )
        /// Deletes a category. Messages already sent with it keep their statistics.
        public static let deleteCategory = MethodDescriptor<DeleteCategoryRequest, DeleteCategoryResponse>(
            service: "pushwire.v1.Categories", method: "DeleteCategory"
        )
        /// Lists the application's categories, in category_id order.
        public static let listCategories = MethodDescriptor<ListCategoriesRequest, ListCategoriesResponse>(
            service: "pushwire.v1.Categories", method: "ListCategories"
        )

        /// Every method of `pushwire.v1.Categories`, in `.proto` order.
        public static let all: [AnyMethodDescriptor] = [upsertCategory.erased, deleteCategory.erased, listCategories.erased]
    }

    /// Called by devices. Every request names its application by code; no token is needed.
    public enum Devices {
        /// Creates or updates a device (by application and hwid); returns the application's categories.
        public static let registerDevice = MethodDescriptor<RegisterDeviceRequest, RegisterDeviceResponse>(
            service: "pushwire.v1.Devices", method: "RegisterDevice"
        )
        /// Forgets the device's push token: it is no longer targeted until it registers again.
        public static let unregisterDevice = MethodDescriptor<UnregisterDeviceRequest, UnregisterDeviceResponse>(
            service: "pushwire.v1.Devices", method: "UnregisterDevice"
        )
        /// Sets, increments or removes tags of a device.
        public static let setTags = MethodDescriptor<SetTagsRequest, SetTagsResponse>(
            service: "pushwire.v1.Devices", method: "SetTags"
        )
        /// Reads a device's tags.
        public static let getTags = MethodDescriptor<GetTagsRequest, GetTagsResponse>(
            service: "pushwire.v1.Devices", method: "GetTags"
        )
        /// Returns the categories only when they changed since `known_version`.
        public static let syncCategories = MethodDescriptor<SyncCategoriesRequest, SyncCategoriesResponse>(
            service: "pushwire.v1.Devices", method: "SyncCategories"
        )
        /// Reports that the user opened a notification or tapped one of its buttons.
        public static let trackAction = MethodDescriptor<TrackActionRequest, TrackActionResponse>(
            service: "pushwire.v1.Devices", method: "TrackAction"
        )
        /// Stores the badge the app shows now, from which a message's "+n" badge counts.
        public static let setBadge = MethodDescriptor<SetBadgeRequest, SetBadgeResponse>(
            service: "pushwire.v1.Devices", method: "SetBadge"
        )

        /// Every method of `pushwire.v1.Devices`, in `.proto` order.
        public static let all: [AnyMethodDescriptor] = [registerDevice.erased, unregisterDevice.erased, setTags.erased, getTags.erased, syncCategories.erased, trackAction.erased, setBadge.erased]
    }

    /// Answers whether the server is serving. Needs no authentication.
    public enum Health {
        /// The serving status of the whole server, or of one service.
        public static let check = MethodDescriptor<HealthCheckRequest, HealthCheckResponse>(
            service: "pushwire.v1.Health", method: "Check"
        )

        /// Every method of `pushwire.v1.Health`, in `.proto` order.
        public static let all: [AnyMethodDescriptor] = [check.erased]
    }

    /// Sends notifications. Every method needs the application's access token.
    public enum Messages {
        /// Creates one message per notification; returns their codes and the hwids it did not know.
        public static let createMessage = MethodDescriptor<CreateMessageRequest, CreateMessageResponse>(
            service: "pushwire.v1.Messages", method: "CreateMessage"
        )
        /// Cancels a scheduled message that has not started going out.
        public static let deleteMessage = MethodDescriptor<DeleteMessageRequest, DeleteMessageResponse>(
            service: "pushwire.v1.Messages", method: "DeleteMessage"
        )
        /// Status and counts of a message.
        public static let getMessageDetails = MethodDescriptor<GetMessageDetailsRequest, GetMessageDetailsResponse>(
            service: "pushwire.v1.Messages", method: "GetMessageDetails"
        )
        /// The application's messages, newest first, a page at a time.
        public static let listMessages = MethodDescriptor<ListMessagesRequest, ListMessagesResponse>(
            service: "pushwire.v1.Messages", method: "ListMessages"
        )
        /// How many devices a targeting selects now, counted through the same selection the fan-out
        /// uses; sends nothing.
        public static let countTargets = MethodDescriptor<CountTargetsRequest, CountTargetsResponse>(
            service: "pushwire.v1.Messages", method: "CountTargets"
        )
        /// A notification checked as CreateMessage checks it and rendered as the APNs payload each of
        /// its languages would be sent as; stores and sends nothing.
        public static let previewNotification = MethodDescriptor<PreviewNotificationRequest, PreviewNotificationResponse>(
            service: "pushwire.v1.Messages", method: "PreviewNotification"
        )
        /// One of the application's devices as the fan-out sees it: platform, language, tags, token state.
        public static let getDevice = MethodDescriptor<GetDeviceRequest, GetDeviceResponse>(
            service: "pushwire.v1.Messages", method: "GetDevice"
        )

        /// Every method of `pushwire.v1.Messages`, in `.proto` order.
        public static let all: [AnyMethodDescriptor] = [createMessage.erased, deleteMessage.erased, getMessageDetails.erased, listMessages.erased, countTargets.erased, previewNotification.erased, getDevice.erased]
    }

    /// Lists the server's methods. Needs no authentication.
    public enum Reflection {
        /// Every method path the server answers, with its request and response message names.
        public static let listMethods = MethodDescriptor<ListMethodsRequest, ListMethodsResponse>(
            service: "pushwire.v1.Reflection", method: "ListMethods"
        )

        /// Every method of `pushwire.v1.Reflection`, in `.proto` order.
        public static let all: [AnyMethodDescriptor] = [listMethods.erased]
    }

    /// Every method of every service, in `.proto` order.
    public static let all: [AnyMethodDescriptor] = [
        Admin.createApplication.erased,
        Admin.updateApplication.erased,
        Admin.listApplications.erased,
        Categories.upsertCategory.erased,
        Categories.deleteCategory.erased,
        Categories.listCategories.erased,
        Devices.registerDevice.erased,
        Devices.unregisterDevice.erased,
        Devices.setTags.erased,
        Devices.getTags.erased,
        Devices.syncCategories.erased,
        Devices.trackAction.erased,
        Devices.setBadge.erased,
        Health.check.erased,
        Messages.createMessage.erased,
        Messages.deleteMessage.erased,
        Messages.getMessageDetails.erased,
        Messages.listMessages.erased,
        Messages.countTargets.erased,
        Messages.previewNotification.erased,
        Messages.getDevice.erased,
        Reflection.listMethods.erased,
    ]
}
