import { IsString, Length } from 'class-validator';

// Sealed tokens are ~150 characters; the bounds only keep absurd input out.
const TOKEN_MAX = 1024;
// Codes are 6 digits or 8 hex characters; spaces and dashes are tolerated, so allow some slack.
const CODE_MAX = 32;

export class VerifySetupDto {
  @IsString()
  @Length(1, TOKEN_MAX)
  setup_token: string;

  @IsString()
  @Length(1, CODE_MAX)
  code: string;
}

export class PasswordConfirmationDto {
  @IsString()
  @Length(1, 256)
  password: string;
}

export class LoginSecondStepDto {
  @IsString()
  @Length(1, TOKEN_MAX)
  login_token: string;

  @IsString()
  @Length(1, CODE_MAX)
  code: string;
}
