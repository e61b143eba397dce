import { StartupError, type StartupErrorCode } from './startup-error.js'

const fail = (code: StartupErrorCode, message: string) => new StartupError(code, message)

/** What is wrong with `fixtures/webhooks.yaml`: the file, or one binding (`where` names the file and the webhook). */
export const webhookErrors = {
  webhookFile: (file: string, what: string) => fail('webhook_file_invalid', `The webhooks file ${file} ${what}.`),
  webhookBinding: (where: string, what: string) => fail('webhook_bad_binding', `${where}: ${what}.`),
}
